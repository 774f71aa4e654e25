// The flags of the newest engine releases (SGLang v0.5.21's arg_groups fields, vLLM's
// v0.29-era arg_utils.py) in launch commands: renamed flags read as the spellings gpumem's
// rules know, host-side flags read and not used, and flags whose memory gpumem does not
// model refused by name unless they keep their default.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/engine_model.h"
#include "engine/flag_table.h"
#include "engine/sglang/flags.h"
#include "engine/vllm/flags.h"
#include "support/launch_words.h"

namespace gpumem {
namespace {

FlagValues flags_of(const std::string& command, const char* engine, Diagnostics& diags) {
  return read_flags(read(words(command)).args, find_engine(engine)->flags(),
                    engine == std::string("vllm") ? "vLLM" : "SGLang", diags);
}

// sglang PR #38375 retired --cuda-graph-max-bs, --cuda-graph-bs, --nsa-*-backend,
// --mamba-scheduler-strategy and the piecewise-graph flags for new names.
TEST(NewestFlags, SglangsRenamedFlagsReadAsTheSpellingsTheRulesKnow) {
  Diagnostics diags;
  const FlagValues v = flags_of(
      "python3 -m sglang.launch_server --model-path m --cuda-graph-max-bs-decode 64 "
      "--cuda-graph-bs-prefill 512 1024 --dsa-prefill-backend flashmla_kv "
      "--mamba-radix-cache-strategy extra_buffer --nccl-init-addr 10.0.0.1:5000 "
      "--disable-prefill-cuda-graph",
      "sglang", diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_EQ(v.integer("--cuda-graph-max-bs"), 64);
  EXPECT_EQ(v.int_list("--piecewise-cuda-graph-tokens"), (std::vector<std::int64_t>{512, 1024}));
  EXPECT_EQ(v.string("--nsa-prefill-backend"), "flashmla_kv");
  EXPECT_EQ(v.string("--mamba-scheduler-strategy"), "extra_buffer");
  EXPECT_TRUE(v.boolean("--disable-piecewise-cuda-graph"));
}

TEST(NewestFlags, HostSideFlagsOfTheNewestReleasesAreRead) {
  Diagnostics sglang_diags;
  const FlagValues s = flags_of(
      "sglang serve --model-path m --enable-http2 --ssl-keyfile k.pem "
      "--bucket-time-to-first-token 0.1 0.5 1 --numa-node 0 1 --hicache-ratio 2 "
      "--base-gpu-id 4 --enable-trace --otlp-traces-endpoint localhost:4317",
      "sglang", sglang_diags);
  EXPECT_EQ(sglang_diags.to_string(), "");
  EXPECT_EQ(s.string("--bucket-time-to-first-token"), "0.1 0.5 1");
  EXPECT_EQ(s.int_list("--numa-node"), (std::vector<std::int64_t>{0, 1}));
  Diagnostics vllm_diags;
  const FlagValues v = flags_of(
      "vllm serve m --served-model-name a b --nnodes 2 -r 1 --master-addr 10.0.0.1 "
      "--kv-cache-metrics --no-use-tqdm-on-load --allowed-headers X-A X-B --shutdown-timeout 30",
      "vllm", vllm_diags);
  EXPECT_EQ(vllm_diags.to_string(), "");
  EXPECT_EQ(v.string("--served-model-name"), "a b");
  EXPECT_EQ(v.integer("--node-rank"), 1);
}

// vLLM's short spellings -ep and -sc (vllm 4897bc66 engine/arg_utils.py add_cli_args) read as
// the long flags whose memory gpumem models: expert parallelism and the speculative config.
TEST(NewestFlags, VllmsShortSpellingsReadAsTheLongFlags) {
  Diagnostics diags;
  const FlagValues v =
      flags_of("vllm serve m -tp 8 -ep -sc {\"method\":\"ngram\",\"num_speculative_tokens\":4}",
               "vllm", diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_TRUE(v.boolean("--enable-expert-parallel"));
  EXPECT_EQ(v.string("--speculative-config"),
            "{\"method\":\"ngram\",\"num_speculative_tokens\":4}");
  EXPECT_EQ(v.integer("--tensor-parallel-size"), 8);
}
TEST(NewestFlags, UnmodelledFlagsAreRefusedUnlessTheyKeepTheirDefault) {
  Diagnostics at_default;
  (void)flags_of(
      "sglang serve --model-path m --mamba-backend triton --fp8-gemm-backend auto "
      "--kv-canary-real-data none",
      "sglang", at_default);
  EXPECT_EQ(at_default.to_string(), "");
  Diagnostics sglang_diags;
  (void)flags_of("sglang serve --model-path m --mamba-backend flashinfer --enable-fp32-lm-head",
                 "sglang", sglang_diags);
  EXPECT_EQ(sglang_diags.to_string(),
            "<launch command>:1:29: '--mamba-backend' is not modelled: each Mamba kernel "
            "backend keeps its own workspaces\n"
            "<launch command>:1:56: '--enable-fp32-lm-head' is not modelled: logits buffers "
            "(and logits in CUDA graphs) become FP32, doubling their size versus bf16\n");
  Diagnostics vllm_diags;
  (void)flags_of("vllm serve m --performance-mode balanced --spec-method ngram", "vllm",
                 vllm_diags);
  EXPECT_EQ(vllm_diags.to_string(),
            "<launch command>:1:42: '--spec-method' is not modelled: a shorthand of "
            "--speculative-config, which gpumem reads: write it there\n");
}

// A name or alias given twice would make argparse's prefix matching (and gpumem's) read a
// flag as another; every refused flag says why, every host-side one changes no memory.
TEST(NewestFlags, EveryFlagIsNamedOnceAndEveryRefusalSaysWhy) {
  for (const char* engine : {"sglang", "vllm"}) {
    std::set<std::string> seen;
    for (const FlagSpec& f : find_engine(engine)->flags()) {
      EXPECT_TRUE(seen.insert(std::string(f.name)).second) << engine << " " << f.name;
      for (std::string_view a : f.aliases) {
        EXPECT_TRUE(seen.insert(std::string(a)).second) << engine << " " << a;
      }
      if (!f.not_modelled.empty()) {
        EXPECT_TRUE(f.affects_memory) << f.name;
      }
    }
    EXPECT_GT(seen.size(), 300u) << engine;
  }
}

// SGLang v0.5.21's graph backends and choice values: "disabled" graphs are the modelled
// --disable-cuda-graph and --disable-piecewise-cuda-graph, dsa is nsa renamed, and the new
// values gpumem does not model are refused by name, not as invalid.
TEST(NewestFlags, SglangsNewestChoiceValues) {
  const auto server_flags = [](const std::string& command, Diagnostics& diags) {
    ScenarioEngine e;
    e.name = "sglang";
    e.args = read(words(command)).args;
    return sglang::read_server_flags(e, diags);
  };
  Diagnostics diags;
  const sglang::ServerFlags f = server_flags(
      "python3 -m sglang.launch_server --model-path m --cuda-graph-backend-decode disabled "
      "--cuda-graph-backend-prefill disabled --attention-backend dsa --mamba-ssm-dtype float16",
      diags);
  EXPECT_EQ(diags.to_string(), "");
  EXPECT_TRUE(f.disable_cuda_graph);
  EXPECT_TRUE(f.disable_piecewise_cuda_graph);
  EXPECT_EQ(f.attention_backend, "nsa");
  EXPECT_EQ(f.mamba_ssm_dtype, "float16");
  Diagnostics refused;
  (void)server_flags(
      "sglang serve --model-path m --speculative-algorithm DFLASH --kv-cache-dtype nvfp4 "
      "--attention-backend dsv4 --cuda-graph-backend-prefill breakable",
      refused);
  EXPECT_EQ(refused.to_string(),
            "<launch command>:1:103: --attention-backend dsv4 is not modelled: DeepSeek-V4's "
            "compressed sparse attention\n"
            "<launch command>:1:77: --kv-cache-dtype nvfp4 is not modelled: an NVFP4 KV cache "
            "(4-bit cells and block scales)\n"
            "<launch command>:1:53: --speculative-algorithm DFLASH is not modelled: DFlash's "
            "block-diffusion draft model and buffers\n"
            "<launch command>:1:137: --cuda-graph-backend-prefill breakable is not modelled: "
            "breakable prefill graphs\n");
}

// vLLM's newest CacheDType: float16 cells are two bytes as bfloat16's; the quantized layouts
// gpumem does not model are refused by name, not as invalid.
TEST(NewestFlags, VllmsNewestKvCacheDtypes) {
  const auto kv_errors = [](const std::string& dtype) {
    ScenarioEngine e;
    e.name = "vllm";
    e.args = read(words("vllm serve m --kv-cache-dtype " + dtype)).args;
    Diagnostics diags;
    (void)vllm::read_engine_flags(e, vllm::rules_for(vllm::Version{0, 21, 0, 0}), diags);
    return diags.to_string();
  };
  EXPECT_EQ(kv_errors("float16"), "");
  EXPECT_EQ(kv_errors("nvfp4"),
            "<launch command>:1:31: --kv-cache-dtype nvfp4 is not modelled: its cells and scales "
            "are laid out by rules gpumem does not have\n");
  EXPECT_EQ(kv_errors("fp8_ds_mla"),
            "<launch command>:1:31: --kv-cache-dtype fp8_ds_mla is not modelled: give "
            "--kv-cache-dtype fp8, which vLLM stores as fp8_ds_mla for a DeepSeek Sparse "
            "Attention model, and which is\n");
}

}  // namespace
}  // namespace gpumem
