#include "explain/platform_clue.h"

#include <re2/re2.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace gpumem {
namespace {

// A platform's clues: names matched between characters that are neither letters nor digits
// ('_' counts as a separator: "device_name=AMD_Instinct_MI300X"), and phrases matched anywhere.
struct Clue {
  const char* platform;
  const char* names;
  const char* phrases;
};

// vllm platforms/__init__.py logs "Automatically detected platform <name>." for rocm, xpu,
// hpu, tpu and the out-of-tree plugins (npu for vllm-ascend, musa for vllm-musa).
constexpr std::array<Clue, 6> kClues = {{
    {"AMD ROCm", "AMD[_ ]Instinct|MI300X|MI308X|MI325X|MI355X|MI250X?|gfx9[0-9][0-9a-f]|AITER",
     R"(\+rocm[0-9]|detected platform rocm)"},
    {"Moore Threads MUSA", "MUSA|torch_musa|MTT[_ ]S[0-9]+", "detected platform musa"},
    {"Huawei Ascend NPU", "vllm-ascend|vllm_ascend|torch_npu|Ascend[0-9]*[A-Z]?|ACL graph",
     "detected platform npu"},
    {"Intel XPU", "intel_extension_for_pytorch",
     R"(Intel\(R\) Arc|Arc Pro B[0-9]+|detected platform xpu)"},
    {"Intel Gaudi HPU", "Gaudi[0-9]?|habana_frameworks", "detected platform hpu"},
    {"Google TPU", "torch_xla", "detected platform tpu"},
}};

const std::vector<std::unique_ptr<RE2>>& patterns() {
  static const std::vector<std::unique_ptr<RE2>> kPatterns = [] {
    std::vector<std::unique_ptr<RE2>> out;
    for (const Clue& c : kClues) {
      out.push_back(std::make_unique<RE2>(std::string("(?:^|[^A-Za-z0-9])(?:") + c.names +
                                          ")(?:[^A-Za-z0-9]|$)|" + c.phrases));
    }
    return out;
  }();
  return kPatterns;
}

}  // namespace

std::optional<std::string> non_cuda_platform(std::string_view text) {
  for (size_t i = 0; i < kClues.size(); ++i) {
    if (RE2::PartialMatch(text, *patterns()[i])) return kClues[i].platform;
  }
  return std::nullopt;
}

}  // namespace gpumem
