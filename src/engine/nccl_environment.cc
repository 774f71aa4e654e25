#include "engine/nccl_environment.h"

#include <vector>

#include "core/spelling.h"
#include "engine/env_value.h"

namespace gpumem {

bool read_nccl_variable(const EnvVar& v, NcclSettings& settings, Diagnostics& diags) {
  const EnvValueReader read(v, diags);
  if (v.name == "NCCL_CUMEM_ENABLE") {
    read.as_bool(settings.cumem_enable);
  } else if (v.name == "NCCL_RUNTIME_CONNECT") {
    read.as_bool(settings.runtime_connect);
  } else if (v.name == "NCCL_BUFFSIZE") {
    read.as_bytes(settings.buffsize);
  } else if (v.name == "NCCL_LL_BUFFSIZE") {
    read.as_bytes(settings.ll_buffsize);
  } else if (v.name == "NCCL_LL128_BUFFSIZE") {
    read.as_bytes(settings.ll128_buffsize);
  } else if (v.name == "NCCL_MIN_NCHANNELS" || v.name == "NCCL_MIN_CTAS") {
    read.as_count(settings.min_channels, 1, 64);
  } else if (v.name == "NCCL_MAX_NCHANNELS" || v.name == "NCCL_MAX_CTAS") {
    read.as_count(settings.max_channels, 1, 64);
  } else if (v.name == "NCCL_P2P_DISABLE") {
    read.as_bool(settings.p2p_disable);
  } else if (v.name == "NCCL_P2P_LEVEL") {
    static const std::vector<std::string> kLevels = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};
    bool known = false;
    for (const std::string& l : kLevels) known = known || l == v.value;
    if (known) {
      settings.p2p_level = v.value;
    } else {
      diags.error(v.value_loc, "NCCL_P2P_LEVEL must be one of LOC, NVL, PIX, PXB, PHB, SYS; got '" +
                                   v.value + "'" + did_you_mean(v.value, kLevels));
    }
  } else if (v.name == "NCCL_NVLS_ENABLE") {
    read.as_bool(settings.nvls_enable);
  } else {
    return false;
  }
  return true;
}

std::span<const std::string_view> nccl_variables() {
  static constexpr std::string_view kNames[] = {
      "NCCL_CUMEM_ENABLE",   "NCCL_RUNTIME_CONNECT", "NCCL_BUFFSIZE",  "NCCL_LL_BUFFSIZE",
      "NCCL_LL128_BUFFSIZE", "NCCL_MIN_NCHANNELS",   "NCCL_MIN_CTAS",  "NCCL_MAX_NCHANNELS",
      "NCCL_MAX_CTAS",       "NCCL_P2P_DISABLE",     "NCCL_P2P_LEVEL", "NCCL_NVLS_ENABLE"};
  return kNames;
}

}  // namespace gpumem
