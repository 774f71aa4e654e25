#include "engine/sglang/environment.h"

#include <span>
#include <vector>

#include "core/spelling.h"
#include "engine/allocator_environment.h"
#include "engine/env_value.h"
#include "engine/environment_table.h"
#include "engine/nccl_environment.h"
#include "engine/sglang/newest_environment.h"

namespace gpumem::sglang {

namespace {

// sglang v0.5.9 environ.py Envs: the variables read for something other than GPU memory.
constexpr EnvRule kRules[] = {
    {"SGLANG_USE_MODELSCOPE", {}, "where the checkpoint is fetched (sglang environ.py)"},
};

// sglang environ.py names its variables SGLANG_; older releases read SGL_ ones too.
constexpr std::string_view kOwnPrefixes[] = {"SGLANG_", "SGL_"};

bool known_variable(const std::string& name) {
  for (std::string_view n : modelled_variables()) {
    if (n == name) return true;
  }
  for (std::span<const EnvRule> rules :
       {std::span<const EnvRule>(kRules), newest_environment_rules()}) {
    for (const EnvRule& r : rules) {
      if (r.name == name) return true;
    }
  }
  return false;
}

}  // namespace

Environment read_environment(const ScenarioEngine& engine, Diagnostics& diags) {
  Environment env;
  for (const EnvVar& given : engine.env) {
    // sglang environ.py _handle_deprecated_envs: any SGL_X is read as SGLANG_X. An SGL_ name
    // whose SGLANG_ form gpumem does not know either keeps its spelling for the message.
    EnvVar v = given;
    if (v.name.starts_with("SGL_") && known_variable("SGLANG_" + v.name.substr(4))) {
      v.name = "SGLANG_" + v.name.substr(4);
    }
    const EnvValueReader read(v, diags);
    if (v.name == "SGLANG_CUSTOM_ALLREDUCE_ALGO") {
      if (v.value == "1stage" || v.value == "oneshot") {
        env.custom_allreduce_algo = AllReduceAlgo::kOneStage;
      } else if (v.value == "2stage" || v.value == "twoshot") {
        env.custom_allreduce_algo = AllReduceAlgo::kTwoStage;
      } else {
        read.bad("1stage, oneshot, 2stage or twoshot");
      }
    } else if (v.name == "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK") {
      std::optional<bool> b;
      read.as_bool(b);
      if (b) env.tp_memory_imbalance_is_error = *b;
    } else if (v.name == "SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK") {
      // environ.py _DEPRECATED_ENVS: forwarded, inverted, to the variable above.
      std::optional<bool> b;
      read.as_bool(b);
      if (b) env.tp_memory_imbalance_is_error = !*b;
    } else if (v.name == "SGLANG_FLASHINFER_WORKSPACE_SIZE") {
      read.as_bytes(env.flashinfer_workspace_size);
    } else if (v.name == "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") {
      std::optional<bool> b;
      read.as_bool(b);
      if (b) env.allow_longer_context = *b;
    } else if (!read_nccl_variable(v, env.nccl, diags) &&
               !read_allocator_variable(v, env.allocator, diags)) {
      check_unread_variable(
          v, {"SGLang", modelled_variables(), kRules, kOwnPrefixes, {}, newest_environment_rules()},
          diags);
    }
  }
  static const std::vector<std::string> kPatches = {"custom-all-reduce-on-pcie"};
  for (size_t i = 0; i < engine.patches.size(); ++i) {
    if (engine.patches[i] == "custom-all-reduce-on-pcie") {
      env.patch_custom_all_reduce_on_pcie = true;
    } else {
      diags.error(engine.patch_locs[i], "unknown SGLang patch '" + engine.patches[i] + "'" +
                                            did_you_mean(engine.patches[i], kPatches));
    }
  }
  return env;
}

std::span<const std::string_view> modelled_variables() {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> names = {
        "SGLANG_CUSTOM_ALLREDUCE_ALGO", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK",
        "SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK", "SGLANG_FLASHINFER_WORKSPACE_SIZE",
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"};
    for (std::string_view n : nccl_variables()) names.push_back(n);
    for (std::string_view n : allocator_variables()) names.push_back(n);
    return names;
  }();
  return kNames;
}

}  // namespace gpumem::sglang
