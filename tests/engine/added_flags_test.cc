// Flags a later release added (engine/added_flags.h): an error at the releases before it, as
// vLLM's argparse stops on a flag it does not have, and read as any other from it on.
#include "engine/vllm/added_flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/engine_model.h"
#include "engine/vllm/version.h"
#include "support/family_simulation.h"

namespace gpumem {
namespace {

TEST(AddedFlags, VllmRefusesAFlagBeforeTheReleaseThatAddedIt) {
  // The safetensors prefetch of PR #41499: 0.21.0 has it, 0.20.0 does not.
  const std::string prefetch = "    --safetensors-prefetch-num-threads: 8\n";
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", prefetch, 1, "0.21.0"), "");
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", prefetch, 1, "0.20.0"),
            "f.yaml:6:41: '--safetensors-prefetch-num-threads' is not a flag of vLLM 0.20.0 "
            "(added in 0.21.0)\n");
  // The queue limits of 0.29.0, later than every release gpumem models.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --max-num-queued-reqs: 64\n"),
            "f.yaml:6:28: '--max-num-queued-reqs' is not a flag of vLLM 0.21.0 (added in "
            "0.29.0)\n");
  // Where only a lower bound is known, the message says so.
  EXPECT_EQ(family_errors("vllm", "qwen3-8b", "    --prefix-match-unit: 16\n"),
            "f.yaml:6:26: '--prefix-match-unit' is not a flag of vLLM 0.21.0 (added in 0.26.0 or "
            "later)\n");
}

// Every dated flag is one of vLLM's (a misspelt name would date nothing), and the releases
// read as versions.
TEST(AddedFlags, EveryDatedFlagIsInVllmsTable) {
  const std::span<const FlagSpec> table = find_engine("vllm")->flags();
  for (const AddedFlag& a : vllm::newer_release_flags()) {
    EXPECT_NE(std::find_if(table.begin(), table.end(),
                           [&](const FlagSpec& f) { return f.name == a.name; }),
              table.end())
        << a.name;
    EXPECT_TRUE(vllm::parse_version(a.added_in).has_value()) << a.name;
  }
}

}  // namespace
}  // namespace gpumem
