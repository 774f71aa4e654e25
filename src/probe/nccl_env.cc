#include "probe/nccl_env.h"

#include <fmt/format.h>

#include <charconv>

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

namespace {

Result<std::optional<bool>> read_flag(const EnvLookup& env, std::string_view name) {
  const std::optional<std::string> v = env(name);
  if (!v) return std::optional<bool>();
  if (*v == "0" || *v == "1") return std::optional<bool>(*v == "1");
  return invalid_input(fmt::format("{}='{}': gpumem reads this variable as 0 or 1", name, *v));
}

Result<std::optional<std::int64_t>> read_count(const EnvLookup& env, std::string_view name) {
  const std::optional<std::string> v = env(name);
  if (!v) return std::optional<std::int64_t>();
  std::int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || ec != std::errc() || ptr != v->data() + v->size() || n < 0) {
    return invalid_input(
        fmt::format("{}='{}' is not a non-negative integer (NCCL takes plain "
                    "numbers: bytes for sizes)",
                    name, *v));
  }
  return std::optional<std::int64_t>(n);
}

}  // namespace

Result<NcclSettings> nccl_settings_from_env(const EnvLookup& env) {
  for (const char* alias : {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS"}) {
    if (env(alias)) {
      return invalid_input(
          fmt::format("{} is set; gpumem models the channel bounds as "
                      "NCCL_MIN_NCHANNELS/NCCL_MAX_NCHANNELS, use those",
                      alias));
    }
  }
  NcclSettings s;
  const auto flag = [&](std::string_view name, std::optional<bool>& out) -> Status {
    auto f = read_flag(env, name);
    if (!f.ok()) return f.status();
    out = *f;
    return Status::ok_status();
  };
  const auto size = [&](std::string_view name, std::optional<Bytes>& out) -> Status {
    auto n = read_count(env, name);
    if (!n.ok()) return n.status();
    if (*n) out = bytes(**n);
    return Status::ok_status();
  };
  const auto count = [&](std::string_view name, std::optional<int>& out) -> Status {
    auto n = read_count(env, name);
    if (!n.ok()) return n.status();
    if (*n) out = static_cast<int>(**n);
    return Status::ok_status();
  };
  GPUMEM_RETURN_IF_ERROR(flag("NCCL_CUMEM_ENABLE", s.cumem_enable));
  GPUMEM_RETURN_IF_ERROR(flag("NCCL_RUNTIME_CONNECT", s.runtime_connect));
  GPUMEM_RETURN_IF_ERROR(size("NCCL_BUFFSIZE", s.buffsize));
  GPUMEM_RETURN_IF_ERROR(size("NCCL_LL_BUFFSIZE", s.ll_buffsize));
  GPUMEM_RETURN_IF_ERROR(size("NCCL_LL128_BUFFSIZE", s.ll128_buffsize));
  GPUMEM_RETURN_IF_ERROR(count("NCCL_MIN_NCHANNELS", s.min_channels));
  GPUMEM_RETURN_IF_ERROR(count("NCCL_MAX_NCHANNELS", s.max_channels));
  GPUMEM_RETURN_IF_ERROR(flag("NCCL_P2P_DISABLE", s.p2p_disable));
  s.p2p_level = env("NCCL_P2P_LEVEL");
  std::optional<bool> nvls;
  GPUMEM_RETURN_IF_ERROR(flag("NCCL_NVLS_ENABLE", nvls));
  if (nvls.value_or(true)) {
    return invalid_input("NCCL_NVLS_ENABLE must be 0: gpumem never enables NVLink multicast");
  }
  s.nvls_enable = false;
  return s;
}

}  // namespace gpumem::probe
