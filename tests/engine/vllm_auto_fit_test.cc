// vLLM's --max-model-len auto (PR #29431, kv_cache_utils.py _auto_fit_max_model_len): the
// model's own length when one request of it fits the KV cache, else the longest one that does
// — the length the "not enough KV cache" error of the same launch estimates.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/fact_ids.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

// GPU 0's log, every step's lines in order.
std::vector<std::string> first_gpu_log(const Ledger& l) {
  std::vector<std::string> out;
  for (const LedgerStep& s : l.gpus.front().steps) {
    out.insert(out.end(), s.log_lines.begin(), s.log_lines.end());
  }
  return out;
}

// Llama 3.1 8B (131,072 tokens, 128 KiB of KV a token) on one RTX 4090: a request of its whole
// length does not fit; auto serves the length vLLM's own error estimates.
TEST(VllmAutoFit, CutsTheLengthToTheLongestRequestTheCacheHolds) {
  const Ledger fixed = family_ledger("vllm", "llama-3.1-8b-instruct", 1, "", "rtx-4090");
  ASSERT_FALSE(fixed.fits());
  const std::string& error = fixed.first_failure()->failed_step()->message;
  const std::string said = "the estimated maximum model length is ";
  const size_t at = error.find(said);
  ASSERT_NE(at, std::string::npos) << error;
  const std::int64_t estimated = std::stoll(error.substr(at + said.size()));

  for (const std::string value : {"auto", "AUTO", "-1"}) {
    const Ledger l = family_ledger("vllm", "llama-3.1-8b-instruct", 1,
                                   "    --max-model-len: " + value + "\n", "rtx-4090");
    ASSERT_TRUE(l.fits()) << value;
    EXPECT_EQ(ledger_fact(l, fact_id::kMaxModelLenFitted), estimated) << value;
    const std::vector<std::string> log = first_gpu_log(l);
    EXPECT_NE(std::find_if(log.begin(), log.end(),
                           [&](const std::string& line) {
                             return line.starts_with(
                                 "Auto-fit max_model_len: reduced from "
                                 "131072 to " +
                                 std::to_string(estimated) + " to fit");
                           }),
              log.end());
  }
  EXPECT_EQ(estimated, 50'144);
}

TEST(VllmAutoFit, KeepsAWholeLengthThatFitsAndNeedsVllm012) {
  const Ledger l =
      family_ledger("vllm", "llama-3.1-8b-instruct", 1, "    --max-model-len: auto\n", "h200");
  ASSERT_TRUE(l.fits());
  EXPECT_EQ(ledger_fact(l, fact_id::kMaxModelLenFitted), 131'072);
  const std::vector<std::string> log = first_gpu_log(l);
  EXPECT_NE(std::find(log.begin(), log.end(),
                      "Auto-fit max_model_len: full model context length 131072 fits in "
                      "available GPU memory"),
            log.end());
  EXPECT_EQ(
      family_errors("vllm", "llama-3.1-8b-instruct", "    --max-model-len: auto\n", 1, "0.11.0"),
      "f.yaml:6:22: --max-model-len auto (-1) needs vLLM 0.12.0 or newer (PR #29431)\n");
}

}  // namespace
}  // namespace gpumem
