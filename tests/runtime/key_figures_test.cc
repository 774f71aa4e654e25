// Key figures: the same keys for both engines, read from fact ids; a v1 ledger (facts keyed by
// their label) reads as if written today.
#include "runtime/key_figures.h"

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "runtime/fact_ids.h"
#include "runtime/ledger_json.h"
#include "support/bundled_scenario.h"

namespace gpumem {
namespace {

TEST(KeyFigures, TheSeedFailsAtKvSizingShortOfTwentyGiB) {
  // Uncalibrated (the RTX PRO 6000 has no calibration), so the golden's own figures.
  const KeyFigures k = key_figures(simulate_bundled("seed-kimi-k2-pcie8-mfs055"));
  EXPECT_FALSE(k.fits);
  ASSERT_TRUE(k.failure);
  EXPECT_EQ(k.failure->step, "kv_cache");
  EXPECT_EQ(k.failure->gpu, 0);
  EXPECT_EQ(k.failure->outcome, StepOutcome::kError);
  // rest = A - F x (1 - mfs) = -19.79 GiB: A lacks 20,270.00 MiB for one KV token.
  EXPECT_EQ(k.failure->shortfall, bytes(21'254'632'883));
  EXPECT_EQ(k.weights_bytes, std::vector<Bytes>(8, bytes(76'377'993'472)));
  EXPECT_EQ(k.free_before_weights, bytes(100'968'472'576));
  EXPECT_EQ(k.free_after_weights, bytes(24'181'250'048));
  EXPECT_EQ(k.kv_tokens, std::nullopt);
  EXPECT_EQ(k.cuda_graph_bytes, std::nullopt);
  EXPECT_EQ(k.min_headroom, bytes(21'735'970'836));
}

TEST(KeyFigures, AV1LedgerReadsWithIdsFromItsLabels) {
  // The golden of h200x1-llama-3.1-8b-vllm as gpumem.ledger.v1 wrote it (git 03a89d4).
  const std::string file = GPUMEM_SOURCE_DIR "/tests/data/ledger-v1-h200x1-llama-3.1-8b-vllm.json";
  Result<Ledger> l = ledger_from_json(file, *read_file(file, InputKind::kLedger));
  ASSERT_TRUE(l.ok()) << l.status().message();
  const Fact* tokens = l->gpus[0].fact(fact_id::kKvTokens);
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->label, "GPU KV cache size (tokens)");
  const KeyFigures k = key_figures(*l);
  EXPECT_TRUE(k.fits);
  EXPECT_EQ(k.failure, std::nullopt);
  EXPECT_EQ(k.weights_bytes, std::vector<Bytes>{bytes(16'094'076'928)});
  EXPECT_EQ(k.kv_tokens, 918'112);
  EXPECT_EQ(k.kv_bytes, bytes(120'340'301'415));
  EXPECT_EQ(k.max_concurrency, 7.004638671875);
  EXPECT_EQ(k.cuda_graph_bytes, bytes(234'881'024));
  EXPECT_EQ(k.free_before_weights, std::nullopt);  // SGLang's F: vLLM has none
  EXPECT_EQ(k.min_headroom, bytes(11'316'311'771));
}

TEST(FactIds, EveryV1LabelHasItsId) {
  EXPECT_EQ(fact_id::fact_id_of_v1_label("F (free before weights, world MIN)"),
            "free_before_weights");
  EXPECT_EQ(fact_id::fact_id_of_v1_label("max_total_num_tokens"), "kv_tokens");
  EXPECT_EQ(fact_id::fact_id_of_v1_label("GPU KV cache size (tokens)"), "kv_tokens");
  EXPECT_EQ(fact_id::fact_id_of_v1_label("uncertainty of step kv_cache"),
            "step_uncertainty_kv_cache");
  EXPECT_EQ(fact_id::fact_id_of_v1_label("cuda graph estimate sample (PIECEWISE, size 512)"),
            "cuda_graph_estimate_sample_piecewise_size_512");
  EXPECT_EQ(fact_id::fact_id_of_v1_label("no such label"), "");
}

}  // namespace
}  // namespace gpumem
