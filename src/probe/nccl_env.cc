#include "probe/nccl_env.h"

#include <fmt/format.h>

namespace gpumem::probe {
namespace {

std::optional<std::string> flag(const std::optional<bool>& b) {
  if (!b) return std::nullopt;
  return std::string(*b ? "1" : "0");
}

std::optional<std::string> size(const std::optional<Bytes>& b) {
  if (!b) return std::nullopt;
  return std::to_string(b->value());
}

std::optional<std::string> count(const std::optional<int>& n) {
  if (!n) return std::nullopt;
  return std::to_string(*n);
}

}  // namespace

Result<std::vector<NcclEnvExpectation>> nccl_env_expectations(const NcclSettings& s) {
  if (s.nvls_enable.value_or(false)) {
    return invalid_input(
        "NCCL settings ask for NVLink multicast (nvls_enable), which gpumem never enables: "
        "cuMulticastCreate can take shared GPUs out of service");
  }
  // Variable names: nccl docs/env.rst (2.28). The channel bounds are read from the
  // NCCL_MIN/MAX_NCHANNELS spelling; their NCCL_MIN/MAX_CTAS aliases must then be unset.
  return std::vector<NcclEnvExpectation>{
      {"NCCL_CUMEM_ENABLE", flag(s.cumem_enable)},
      {"NCCL_RUNTIME_CONNECT", flag(s.runtime_connect)},
      {"NCCL_BUFFSIZE", size(s.buffsize)},
      {"NCCL_LL_BUFFSIZE", size(s.ll_buffsize)},
      {"NCCL_LL128_BUFFSIZE", size(s.ll128_buffsize)},
      {"NCCL_MIN_NCHANNELS", count(s.min_channels)},
      {"NCCL_MIN_CTAS", std::nullopt},
      {"NCCL_MAX_NCHANNELS", count(s.max_channels)},
      {"NCCL_MAX_CTAS", std::nullopt},
      {"NCCL_P2P_DISABLE", flag(s.p2p_disable)},
      {"NCCL_P2P_LEVEL", s.p2p_level},
      {"NCCL_NVLS_ENABLE", std::string("0")},
  };
}

Status check_nccl_env(const NcclSettings& s, const EnvLookup& env) {
  auto expected = nccl_env_expectations(s);
  if (!expected.ok()) return expected.status();
  for (const auto& [name, want] : *expected) {
    const std::optional<std::string> have = env(name);
    if (have == want) continue;
    return invalid_input(fmt::format(
        "the NCCL settings need {} but this process has {}; NCCL reads its variables once per "
        "process, so the launcher must set them before the ranks start",
        want ? name + "=" + *want : name + " unset", have ? name + "=" + *have : name + " unset"));
  }
  return Status::ok_status();
}

}  // namespace gpumem::probe
