#include "catalog/parameter_count.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace gpumem {
namespace {

Architecture catalog_model(const std::string& slug) {
  Diagnostics diags;
  Result<Architecture> a =
      load_architecture_file(GPUMEM_SOURCE_DIR "/model/llm/" + slug + ".yaml", diags);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? *a : Architecture{};
}

struct Expected {
  const char* slug;
  std::int64_t computed;  // the research file's exact computed figure (see below)
};

// `params_*_computed` of each file in model-configs/, or, where the research file gives only
// a rounded figure, the exact total computed here by hand from its config (noted).
constexpr Expected kComputed[] = {
    {"deepseek-r1", 671'026'419'200},  // "same geometry" as deepseek-v3
    {"deepseek-v3", 671'026'419'200},  // main model, MTP layer excluded
    // fc 154,140,672 + attention 411,041,792 + mlp 396,361,728 + norms 28,672 + lm_head
    // 229,376,000 (embed_tokens is borrowed from the target)
    {"eagle3-kimi-k2", 1'190'948'864},
    {"eagle3-llama3.1-instruct-8b", 424'689'664},
    // 1.403B in the file: fc 3 x 8192 x 8192 = 201,326,592; q 16384 x 8192 = 134,217,728;
    // k, v 16384 x 1024 = 16,777,216 each; o 67,108,864; mlp 3 x 8192 x 28672 = 704,643,072;
    // 4 norms 32,768; lm_head 32000 x 8192 = 262,144,000.
    {"eagle3-llama3.3-instruct-70b", 1'403'027'456},
    // The language model's 27,009,346,304 and the SigLIP tower with its projector's 423,060,336
    // (Hugging Face's page for google/gemma-3-27b-it reads 27.4B params).
    {"gemma-3-27b-it", 27'432'406'640},
    // 106.852B in the file: per layer attention 12288 x 4096 + 12288 + 2 x (1024 x 4096 +
    // 1024) + 4096 x 12288 = 109,077,504 and norms 8,192; dense layer 0 3 x 4096 x 10944;
    // 45 MoE layers of 128 experts x 3 x 4096 x 1408 + shared 3 x 4096 x 1408 + gate
    // 128 x 4096 + bias 128; embed and lm_head 151552 x 4096; final norm.
    {"glm-4.5-air", 106'852'251'264},
    {"gpt-oss-120b", 116'829'156'672},
    {"gpt-oss-20b", 20'914'757'184},
    {"kimi-k2-instruct", 1'026'408'232'448},
    {"kimi-k2-thinking", 1'026'408'232'448},
    {"llama-3.1-405b-instruct", 405'853'388'800},
    {"llama-3.1-70b-instruct", 70'553'706'496},
    {"llama-3.1-70b-instruct-fp8-nvidia", 70'553'706'496},  // same geometry, scales not counted
    {"llama-3.1-8b-instruct", 8'030'261'248},
    {"llama-3.3-70b-instruct", 70'553'706'496},
    {"mistral-7b-instruct-v0.3", 7'248'023'552},
    {"mixtral-8x7b-instruct-v0.1", 46'702'792'704},
    {"qwen2.5-72b-instruct", 72'706'203'648},
    {"qwen2.5-7b-instruct", 7'615'616'512},
    {"qwen3-235b-a22b", 235'093'634'560},
    {"qwen3-235b-a22b-fp8", 235'093'634'560},  // same geometry
    {"qwen3-30b-a3b", 30'532'122'624},
    {"qwen3-32b", 32'762'123'264},
    {"qwen3-8b", 8'190'735'360},
    // Derived in tests/engine/decilm_test.cc from the per-layer list of its block_configs.
    {"llama-3.3-nemotron-super-49b-v1", 49'867'145'216},
};

TEST(ParameterCount, EveryCatalogModelMatchesItsComputedFigure) {
  for (const Expected& e : kComputed) {
    EXPECT_EQ(parameter_count(catalog_model(e.slug)), e.computed) << e.slug;
  }
}

struct Published {
  const char* slug;
  double value;       // as printed on the card, in `unit`
  double last_digit;  // the printed precision: 0.01 for "7.61B", 1 for "671B"
  double unit;
};

// Published totals (model cards, READMEs, vendor pages cited in each entry's
// published_params). Cards round or truncate; the count must lie within one unit of the
// last printed digit.
constexpr Published kPublished[] = {
    {"deepseek-v3", 671, 1, 1e9},
    {"deepseek-r1", 671, 1, 1e9},
    {"gemma-3-27b-it", 27, 1, 1e9},
    {"glm-4.5-air", 106, 1, 1e9},
    {"gpt-oss-120b", 117, 1, 1e9},
    {"gpt-oss-20b", 21, 1, 1e9},
    {"kimi-k2-instruct", 1, 1, 1e12},
    {"kimi-k2-thinking", 1, 1, 1e12},
    {"llama-3.1-405b-instruct", 405, 1, 1e9},
    {"llama-3.1-70b-instruct", 70, 1, 1e9},
    {"llama-3.1-8b-instruct", 8, 1, 1e9},
    {"mistral-7b-instruct-v0.3", 7.3, 0.1, 1e9},
    {"mixtral-8x7b-instruct-v0.1", 46.7, 0.1, 1e9},
    {"qwen2.5-72b-instruct", 72.7, 0.1, 1e9},
    {"qwen2.5-7b-instruct", 7.61, 0.01, 1e9},
    {"qwen3-235b-a22b", 235, 1, 1e9},
    {"qwen3-30b-a3b", 30.5, 0.1, 1e9},
    {"qwen3-32b", 32.8, 0.1, 1e9},
    {"qwen3-8b", 8.2, 0.1, 1e9},
    {"llama-3.3-nemotron-super-49b-v1", 49.87, 0.01, 1e9},  // llama.cpp's model params line
};

TEST(ParameterCount, AgreesWithPublishedRoundedTotals) {
  for (const Published& p : kPublished) {
    const double count = static_cast<double>(parameter_count(catalog_model(p.slug))) / p.unit;
    EXPECT_LT(std::abs(count - p.value), p.last_digit) << p.slug << " counts " << count;
  }
}

TEST(ParameterCount, LayersAddUpAndDenseLayersDifferFromMoeLayers) {
  const Architecture a = catalog_model("deepseek-v3");
  // Dense layer: MLA attention 187,107,328 + MLP 3 x 7168 x 18432 = 396,361,728 + norms
  // 14,336. MoE layer: attention + 256 experts x 3 x 7168 x 2048 + shared 3 x 7168 x 2048 +
  // gate 256 x 7168 + bias 256 + norms.
  EXPECT_EQ(layer_parameter_count(a, 0), 187'107'328 + 396'361'728 + 14'336);
  EXPECT_EQ(layer_parameter_count(a, 3),
            187'107'328 + 257LL * 3 * 7168 * 2048 + 256 * 7168 + 256 + 14'336);
}

}  // namespace
}  // namespace gpumem
