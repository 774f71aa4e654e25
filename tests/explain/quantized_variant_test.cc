// Logs that name a quantized export of a catalog model (explanation.cc
// replay_quantized_variant): replayed as the base model quantized as the name states, where the
// logged weights confirm it or the log prints none; left unreplayed where they contradict it.
#include <gtest/gtest.h>

#include <string>

#include "catalog/quantization_by_name.h"
#include "core/atomic_file.h"
#include "explain/explanation.h"
#include "explain/log_reader.h"
#include "explain/model_choice.h"
#include "support/published_constants.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";
const std::string kW8a8 = "vllm-80gb-x1-llama3.1-70b-w8a8-v1-early-gpu-blocks.log";
const std::string kW8a8Name = "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8";

// The log `file` explained on `gpu`, with `from` in its text read as `to` where given.
Explanation explain(const std::string& file, const std::string& gpu, const std::string& from = "",
                    const std::string& to = "") {
  Result<std::string> text = read_file(kDir + file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << file;
  std::string log_text = text.value();
  if (!from.empty()) log_text.replace(log_text.find(from), from.size(), to);
  Result<StartupLog> log = read_startup_log(log_text, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  ExplainOverrides o;
  o.gpu = gpu;
  return explain_log(log.value(), file, nullptr, o,
                     {test_catalogs().gpus, test_catalogs().models, published_constants, {}});
}

const FigureCheck* at(const RunExplanation& r, Quantity q, int line) {
  for (const FigureCheck& c : r.figures) {
    if (c.quantity == q && c.line == line) return &c;
  }
  return nullptr;
}

// vllm PR #12569: neuralmagic's W8A8 Llama-3.1-70B. Its name's scheme (INT8 weights with a
// float32 scale per row; embedding, head and norms bfloat16) gives 67.7228 GiB, and the log
// says 67.7229.
TEST(QuantizedVariant, WeightsThatAgreeConfirmTheNamedQuantization) {
  const Explanation e = explain(kW8a8, "h100-sxm-80gb");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.replayed()) << r.not_replayed;
  EXPECT_EQ(r.implied.model.value, kW8a8Name);
  EXPECT_EQ(r.implied.model.note,
            "'" + kW8a8Name +
                "' (line 7) is not in the model catalog; its name extends "
                "meta-llama/Meta-Llama-3.1-70B-Instruct's (catalog llama-3.1-70b-instruct): if it "
                "has that architecture and checkpoint format, name it with --model "
                "llama-3.1-70b-instruct; read as llama-3.1-70b-instruct quantized as its name "
                "states (compressed-tensors W8A8 INT8 per channel (llm-compressor's W8A8 "
                "scheme)), which the weights confirm: 67.7228 GiB predicted, 67.7229 GiB logged "
                "(line 9); give the checkpoint's config.json with --model to read its own");
  const FigureCheck* weights = at(r, Quantity::kModelLoading, 9);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->verdict, Verdict::kPinned);
}

// The same log under an AWQ name: 4-bit weights would be about 37 GiB, not 67.72, so the name
// is not taken and the log stays a partial replay.
TEST(QuantizedVariant, WeightsThatContradictTheNameLeaveTheModelUnknown) {
  const Explanation e = explain(kW8a8, "h100-sxm-80gb", kW8a8Name,
                                "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  EXPECT_FALSE(r.replayed());
  EXPECT_TRUE(r.partial.has_value());
  EXPECT_EQ(r.implied.model.note.find("read as"), std::string::npos) << r.implied.model.note;
  EXPECT_TRUE(r.implied.model.note.ends_with(
      "; its name states a quantization of llama-3.1-70b-instruct, but no such reading prints "
      "the logged weights (67.7229 GiB, line 9; predicted AWQ 4-bit, group 128, zero points "
      "(AutoAWQ's defaults): 37.09 GiB)"))
      << r.implied.model.note;
}

// club-3090 #612: no weights line, so nothing confirms the name's NVFP4; the pinned KV memory
// (5.98 GiB) still gives vLLM 0.21's token count and concurrency exactly, as the log prints
// them.
TEST(QuantizedVariant, WithoutAWeightsFigureTheNameIsTakenAndSaidUnconfirmed) {
  const Explanation e = explain("vllm-rtx5090-x1-qwen3.6-35b-a3b-nvfp4-club3090.log", "rtx-5090");
  ASSERT_EQ(e.runs.size(), 1u);
  const RunExplanation& r = e.runs[0];
  ASSERT_TRUE(r.replayed()) << r.not_replayed;
  EXPECT_NE(r.implied.model.note.find(
                "read as Qwen/Qwen3.6-35B-A3B quantized as its name states (ModelOpt NVFP4, "
                "groups of 16, the head kept (ModelOpt's defaults)); nothing confirms it: the "
                "log prints no weights figure"),
            std::string::npos)
      << r.implied.model.note;
  const FigureCheck* tokens = at(r, Quantity::kKvTokens, 8);
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->verdict, Verdict::kMatch);
  EXPECT_EQ(*tokens->predicted, 567978);
}

TEST(QuantizedVariant, TheBaseIsFoundPastOrganisationPrefixesAndDottedSchemes) {
  const ModelCatalog& models = test_catalogs().models;
  const auto base = [&](const std::string& name) {
    const std::optional<Sourced> b = variant_of(name, models);
    return b ? b->value : std::string("(none)");
  };
  EXPECT_EQ(base("/models/cognitivecomputations_DeepSeek-V3-0324-AWQ/"), "deepseek-v3");
  EXPECT_EQ(base("nytopop/Qwen3-30B-A3B.w4a16"), "qwen3-30b-a3b");
  EXPECT_EQ(base("Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"), "qwen2.5-72b-instruct");
  // A version's dot is no word boundary: Qwen2.5-Foo is not Qwen2's.
  EXPECT_EQ(base("Qwen2.5-Foo-AWQ"), "(none)");
  // A hostile line: a million-character name of dashes is no checkpoint's, read in one pass.
  std::string hostile = "Qwen/Qwen3-8B";
  for (int i = 0; i < 100'000; ++i) hostile += "-AWQ-int4";
  EXPECT_EQ(base(hostile), "(none)");
  EXPECT_EQ(quantizations_in_name(hostile).size(), 1u);
}

}  // namespace
}  // namespace gpumem
