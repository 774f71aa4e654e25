// NVIDIA's nemotron-nas models (DeciLMForCausalLM) from Llama-3.3-Nemotron-Super-49B-v1's config
// in both engines (nemotron_nas.py): 80 Llama layers of which 31 drop their attention and every
// MLP has its own width from ffn_mult. vLLM caches keys and values for the 49 attending layers
// only; SGLang's pool spans all 80. Every expected value is derived here from the config's
// per-layer list, written out below as runs of layers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/parameter_count.h"
#include "support/config_errors.h"
#include "support/family_simulation.h"
#include "weights/checkpoint_tensors.h"

namespace gpumem {
namespace {

const std::string kSuper = "nvidia--Llama-3_3-Nemotron-Super-49B-v1";
constexpr std::int64_t kHidden = 8192;
constexpr std::int64_t kVocab = 128256;

// block_configs as runs of layers: whether they attend (8 KV heads of 128 from n_heads_in_group
// 8 of 64 heads), and the MLP width int(2 x ffn_mult x 8192 / 3) rounded up to 256.
struct LayerRun {
  int first;
  int last;
  bool attends;
  std::int64_t width;
};
const std::vector<LayerRun> kRuns = {
    {0, 0, true, 14336},    {1, 5, true, 28672},    {6, 7, false, 14336},  {8, 10, true, 28672},
    {11, 11, false, 17920}, {12, 41, true, 28672},  {42, 42, false, 7168}, {43, 44, false, 14336},
    {45, 45, false, 7168},  {46, 46, false, 28672}, {47, 47, false, 7168}, {48, 48, false, 14336},
    {49, 51, false, 7168},  {52, 52, true, 28672},  {53, 53, false, 7168}, {54, 55, false, 5632},
    {56, 56, false, 7168},  {57, 59, false, 5632},  {60, 61, false, 7168}, {62, 63, false, 2816},
    {64, 65, false, 5632},  {66, 67, false, 2816},  {68, 68, false, 5632}, {69, 70, false, 2816},
    {71, 79, true, 28672},
};

// Parameters of one layer of the run `r` on one rank of `tp` (attention heads, KV heads and MLP
// width split; norms whole).
std::int64_t layer_parameters(const LayerRun& r, std::int64_t tp) {
  const std::int64_t heads = 64 / tp;
  const std::int64_t kv = std::max<std::int64_t>(1, 8 / tp);
  const std::int64_t attention = (heads + 2 * kv) * 128 * kHidden + kHidden * heads * 128;
  return (r.attends ? attention + kHidden : 0) + 3 * kHidden * (r.width / tp) + kHidden;
}

// Parameters of the whole model, or of one rank of `tp` (vocabulary rows split too).
std::int64_t super_parameters(std::int64_t tp) {
  std::int64_t n = 2 * (kVocab / tp) * kHidden + kHidden;  // embedding, head, final norm
  for (const LayerRun& r : kRuns) n += (r.last - r.first + 1) * layer_parameters(r, tp);
  return n;
}

Architecture load_super() {
  Diagnostics diags;
  Result<Architecture> a = load_hf_config(public_config_dir(kSuper) + "/config.json", diags);
  EXPECT_TRUE(a.ok()) << diags.to_string();
  return a.ok() ? *a : Architecture{};
}

TEST(DeciLM, ReadsEachLayerFromBlockConfigs) {
  const Architecture a = load_super();
  EXPECT_EQ(a.family, ArchitectureFamily::kDeciLM);
  EXPECT_EQ(a.num_key_value_heads, 8);
  EXPECT_EQ(a.attention_layers(0, 80), 49);
  for (const LayerRun& r : kRuns) {
    for (int i = r.first; i <= r.last; ++i) {
      EXPECT_EQ(a.layer_types[static_cast<size_t>(i)] != LayerAttention::kNone, r.attends) << i;
      EXPECT_EQ(a.layer_intermediate_size(i), r.width) << i;
    }
  }
  EXPECT_EQ(a.intermediate_size, 28672);  // the widest layer's, for activation estimates
  // llama.cpp prints "model params = 49.87 B" for this model (ggml-org/llama.cpp issue #14752).
  EXPECT_EQ(super_parameters(1), 49'867'145'216LL);
  EXPECT_EQ(parameter_count(a), super_parameters(1));
  Result<std::vector<CheckpointTensor>> tensors = checkpoint_tensors(a);
  ASSERT_TRUE(tensors.ok());
  EXPECT_EQ(checkpoint_bytes(*tensors).value(), 2 * super_parameters(1));
}

TEST(DeciLM, BothEnginesBuildTheSameRanks) {
  // At TP 8, beside each engine's RoPE cache of 131,072 x 128 (float32 in SGLang, bfloat16 in
  // vLLM).
  const std::pair<const char*, std::int64_t> engines[] = {{"sglang", 131072 * 128 * 4},
                                                          {"vllm", 131072 * 128 * 2}};
  for (const auto& [engine, rope] : engines) {
    SCOPED_TRACE(engine);
    const Ledger l = family_ledger(engine, kSuper, 8, "", "h200",
                                   engine == std::string("sglang") ? "0.5.9" : "0.21.0");
    ASSERT_TRUE(l.fits());
    EXPECT_EQ(ledger_fact(l, "weights_logical_bytes"), 2 * super_parameters(8) + rope);
  }
}

TEST(DeciLM, VllmCachesTheAttendingLayersAndSglangEveryLayer) {
  // One KV head of 128 per rank at TP 8, K and V in bfloat16.
  const Ledger sglang = family_ledger("sglang", kSuper, 8, "");
  ASSERT_TRUE(sglang.fits());
  EXPECT_EQ(ledger_fact(sglang, "kv_cell_bytes"), 80 * 2 * 128 * 2);
  const Ledger vllm = family_ledger("vllm", kSuper, 8, "");
  ASSERT_TRUE(vllm.fits());
  EXPECT_EQ(ledger_fact(vllm, "kv_page_bytes"), 16 * 2 * 128 * 2);
  EXPECT_EQ(ledger_fact(vllm, "kv_layers_per_group"), 49);
}

TEST(DeciLM, VllmOffloadsItsLayersToCpu) {
  // nemotron_nas.py builds its layers with make_layers, where vLLM's offloader moves whole
  // parameters in order (qkv_proj, o_proj, input_layernorm, gate_up_proj, down_proj,
  // post_attention_layernorm) while fewer than 30 GiB have moved: layers 0-19 (30,677,745,664
  // B in bfloat16), then layer 20 up to its down_proj, which passes 30 GiB.
  std::int64_t first_twenty = 0;
  for (const LayerRun& r : kRuns) {
    if (r.first < 20)
      first_twenty += 2 * (std::min(r.last, 19) - r.first + 1) * layer_parameters(r, 1);
  }
  EXPECT_EQ(first_twenty, 30'677'745'664);
  const std::int64_t layer_20 = 2 * layer_parameters(kRuns[5], 1);
  const Ledger l = family_ledger(
      "vllm", kSuper, 1, "    --cpu-offload-gb: 30\n    --max-model-len: 8192\n", "h100-sxm-80gb");
  ASSERT_TRUE(l.fits());
  const Fact* f = l.gpus.front().fact("weights_offloaded_to_cpu");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<Bytes>(f->value).value(), first_twenty + layer_20 - 2 * kHidden);
}

// A two-layer nemotron-nas config whose second block is `second`.
std::string two_layer_config(const std::string& second) {
  return "architectures: [DeciLMForCausalLM]\nhidden_size: 256\nnum_hidden_layers: 2\n"
         "num_attention_heads: 4\nnum_key_value_heads: null\nintermediate_size: null\n"
         "vocab_size: 1000\nmax_position_embeddings: 256\ntorch_dtype: bfloat16\n"
         "block_configs:\n"
         "- {attention: {n_heads_in_group: 2, no_op: false, replace_with_linear: false},\n"
         "   ffn: {ffn_mult: 1.0, no_op: false, replace_with_linear: false}}\n" +
         second;
}

TEST(DeciLM, BlocksTheEnginesDoNotBuildAreRefused) {
  EXPECT_EQ(config_errors(two_layer_config("- {attention: {n_heads_in_group: 4, no_op: false},\n"
                                           "   ffn: {ffn_mult: 1.0, no_op: true}}\n")),
            "t.json:13:34: ValueError: Variable GQA (VGQA) is not yet supported for nemotron-nas "
            "in sglang (layer 1 has 1 KV heads, an earlier one 2); gpumem does not model it in "
            "vLLM either\n");
  EXPECT_EQ(
      config_errors(two_layer_config("- {attention: {no_op: false, replace_with_linear: true},\n"
                                     "   ffn: {ffn_mult: 1.0, no_op: false}}\n")),
      "t.json:13:51: 'replace_with_linear' true is not served: neither SGLang's nor vLLM's "
      "nemotron_nas.py builds a block replaced by a linear layer\n");
  // int(2 x 1023.9 x 131,072 / 3) = 89,469,747, rounded up to 89,469,952: above the bound gpumem
  // keeps every dimension under.
  std::string wide = two_layer_config("- {attention: {no_op: true}, ffn: {ffn_mult: 1023.9}}\n");
  wide.replace(wide.find("hidden_size: 256"), 16, "hidden_size: 131072");
  EXPECT_EQ(config_errors(wide),
            "t.json:13:46: 'ffn_mult' 1023.9 gives an MLP width of 89469952, above 67108864 "
            "(2^26)\n");
  EXPECT_EQ(config_errors(two_layer_config("- {attention: {no_op: true}, ffn: {no_op: false}}\n")),
            "t.json:13:35: missing key 'ffn_mult' in 'ffn' of a 'block_configs' entry\n");
}

// Each malformed block list is refused at its key, as nemotron_nas.py would fail on it or
// serve it in a way gpumem does not model.
TEST(DeciLM, MalformedBlockListsAreRefusedAtTheirKey) {
  const std::string one_block = two_layer_config("");
  const std::string no_blocks = one_block.substr(0, one_block.find("block_configs:"));
  EXPECT_EQ(config_errors(no_blocks), "t.json:1:1: missing key 'block_configs' in 'config'\n");
  EXPECT_EQ(config_errors(one_block),
            "t.json:11:1: 'block_configs' must be a list of one entry per layer (2)\n");
  EXPECT_EQ(config_errors(no_blocks + "block_configs: {attention: {no_op: true}}\n"),
            "t.json:10:16: 'block_configs' must be a list of one entry per layer (2)\n");
  EXPECT_EQ(
      config_errors(two_layer_config("- {attention: {n_heads_in_group: 3}, ffn: {no_op: true}}\n")),
      "t.json:13:34: 'num_attention_heads' 4 is not a multiple of 'n_heads_in_group' 3\n");
  EXPECT_EQ(
      config_errors(two_layer_config("- {attention: {n_heads_in_group: 0}, ffn: {no_op: true}}\n")),
      "t.json:13:34: 'n_heads_in_group' must be positive, got 0\n");
  // Both layers drop their attention: a model with no KV cache and nothing to attend with.
  std::string silent = two_layer_config("- {attention: {no_op: true}, ffn: {ffn_mult: 1.0}}\n");
  silent.replace(silent.find("n_heads_in_group: 2, no_op: false"), 33, "no_op: true");
  EXPECT_EQ(config_errors(silent),
            "t.json:11:1: no layer of 'block_configs' attends: nothing to serve\n");
  EXPECT_EQ(config_errors(two_layer_config("- {attention: {no_op: true}, ffn: {ffn_mult: 0}}\n")),
            "t.json:13:46: 'ffn_mult' must be above 0 and below 1024, got 0\n");
  EXPECT_EQ(
      config_errors(two_layer_config("- {attention: {no_op: true}, ffn: {ffn_mult: -1.5}}\n")),
      "t.json:13:46: 'ffn_mult' must be above 0 and below 1024, got -1.5\n");
  EXPECT_EQ(config_errors(two_layer_config(
                "- {attention: {no_op: true}, ffn: {ffn_mult: 1.0, intermediate_size: 512}}\n")),
            "t.json:13:70: an 'intermediate_size' in block_configs is not modelled: vLLM's "
            "nemotron_nas.py takes it, SGLang's computes the width from ffn_mult\n");
}

TEST(DeciLM, SglangServesItFrom051OnOneStage) {
  EXPECT_NE(family_errors("sglang", kSuper, "    --tp-size: 8\n", 8, "0.4.10")
                .find("DeciLMForCausalLM is not served by SGLang 0.4.10 (from 0.5.1)"),
            std::string::npos);
  EXPECT_NE(family_errors("sglang", kSuper, "    --tp-size: 4\n    --pp-size: 2\n", 8)
                .find("--pp-size above 1 is not modelled for DeciLMForCausalLM"),
            std::string::npos);
}

}  // namespace
}  // namespace gpumem
