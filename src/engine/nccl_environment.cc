#include "engine/nccl_environment.h"

#include <vector>

#include "core/spelling.h"
#include "engine/env_value.h"

namespace gpumem {

bool read_nccl_variable(const EnvVar& v, NcclSettings& settings, Diagnostics& diags) {
  auto bad = [&](const std::string& expected) {
    diags.error(v.value_loc, v.name + " must be " + expected + ", got '" + v.value + "'");
  };
  auto as_bool = [&](std::optional<bool>& out) {
    if (std::optional<bool> b = env_bool(v.value)) {
      out = *b;
    } else {
      bad("0 or 1");
    }
  };
  auto as_int = [&](std::optional<int>& out) {
    std::optional<std::int64_t> i = env_int(v.value);
    if (i && *i >= 1 && *i <= 64) {
      out = static_cast<int>(*i);
    } else {
      bad("an integer from 1 to 64");
    }
  };
  auto as_bytes = [&](std::optional<Bytes>& out) {
    std::optional<std::int64_t> i = env_int(v.value);
    if (i && *i > 0) {
      out = bytes(*i);
    } else {
      bad("a positive number of bytes");
    }
  };
  if (v.name == "NCCL_CUMEM_ENABLE") {
    as_bool(settings.cumem_enable);
  } else if (v.name == "NCCL_RUNTIME_CONNECT") {
    as_bool(settings.runtime_connect);
  } else if (v.name == "NCCL_BUFFSIZE") {
    as_bytes(settings.buffsize);
  } else if (v.name == "NCCL_LL_BUFFSIZE") {
    as_bytes(settings.ll_buffsize);
  } else if (v.name == "NCCL_LL128_BUFFSIZE") {
    as_bytes(settings.ll128_buffsize);
  } else if (v.name == "NCCL_MIN_NCHANNELS" || v.name == "NCCL_MIN_CTAS") {
    as_int(settings.min_channels);
  } else if (v.name == "NCCL_MAX_NCHANNELS" || v.name == "NCCL_MAX_CTAS") {
    as_int(settings.max_channels);
  } else if (v.name == "NCCL_P2P_DISABLE") {
    as_bool(settings.p2p_disable);
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
    as_bool(settings.nvls_enable);
  } else {
    return false;
  }
  return true;
}

}  // namespace gpumem
