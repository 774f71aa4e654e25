#include "engine/sglang/flags.h"

#include <array>

#include "core/python_format.h"
#include "engine/refused_values.h"
#include "engine/sglang/newest_flags.h"
#include "engine/sglang/older_flags.h"

namespace gpumem::sglang {

namespace {

// sglang v0.5.9 server_args.py ServerArgs.add_cli_args: names, aliases and choices.
const std::vector<FlagSpec>& table() {
  static const std::vector<FlagSpec> kTable = {
      {"--tp-size", {"--tensor-parallel-size"}, FlagType::kInt, true, {}},
      {"--pp-size", {"--pipeline-parallel-size"}, FlagType::kInt, true, {}},
      {"--dp-size", {"--data-parallel-size"}, FlagType::kInt, true, {}},
      {"--ep-size", {"--expert-parallel-size", "--ep"}, FlagType::kInt, true, {}},
      {"--enable-dp-attention", {}, FlagType::kBool, true, {}},
      {"--mem-fraction-static", {}, FlagType::kFloat, true, {}},
      // server_args.py cpu_offload_gb: int, GiB of each rank's decoder-layer parameters kept in
      // CPU memory (utils/offloader.py OffloaderV1; weights/cpu_offload.h).
      {"--cpu-offload-gb", {}, FlagType::kInt, true, {}},
      {"--max-running-requests", {}, FlagType::kInt, true, {}},
      {"--max-total-tokens", {}, FlagType::kInt, true, {}},
      {"--context-length", {}, FlagType::kInt, true, {}},
      {"--chunked-prefill-size", {}, FlagType::kInt, true, {}},
      {"--max-prefill-tokens", {}, FlagType::kInt, true, {}},
      {"--cuda-graph-max-bs", {"--cuda-graph-max-bs-decode"}, FlagType::kInt, true, {}},
      {"--cuda-graph-bs", {"--cuda-graph-bs-decode"}, FlagType::kIntList, true, {}},
      {"--disable-cuda-graph", {}, FlagType::kBool, true, {}},
      {"--disable-cuda-graph-padding", {}, FlagType::kBool, true, {}},
      {"--disable-custom-all-reduce", {}, FlagType::kBool, true, {}},
      {"--kv-cache-dtype",
       {},
       FlagType::kString,
       true,
       // v0.5.21 (arg_groups/choices.py at 0099dee6) adds mxfp8, nvfp4 and fp4_mx_block16
       // (refused below) and drops fp4_e2m1, which older releases take.
       {"auto", "fp8_e4m3", "fp8_e5m2", "bf16", "bfloat16", "fp4_e2m1", "mxfp8", "nvfp4",
        "fp4_mx_block16"}},
      {"--dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "half", "float16", "bfloat16", "float", "float32"}},
      {"--page-size", {}, FlagType::kInt, true, {}},
      {"--attention-backend",
       {},
       FlagType::kString,
       true,
       {"fa3", "fa4", "flashinfer", "triton", "torch_native", "flashmla", "cutlass_mla",
        "trtllm_mla", "trtllm_mha", "flex_attention", "aiter", "wave", "ascend", "intel_amx",
        "dual_chunk_flash_attn", "nsa",
        // v0.5.21 (choices.py at 0099dee6): dsa is nsa renamed (read as nsa); the others are
        // refused below.
        "dsa", "qsa", "dsv4", "compressed", "cutedsl_mla", "tokenspeed_mla", "hpc_ops",
        "minicpm_flashattn", "minicpm_flashinfer", "intel_xpu", "mlu"}},
      // sglang server_args.py (read at the v0.5.8/9-era snapshot 271536807): the sparse
      // attention kernels of DeepSeek DSA models; trtllm keeps a plain FP8 latent and a
      // FlashInfer workspace (engine/sglang/model_facts.h).
      // sglang PR #38375 (v0.5.20) retired the old spellings of renamed flags; the new ones are
      // aliases here, with the same memory effect: --cuda-graph-max-bs-decode, --cuda-graph-bs-
      // decode, --dsa-{prefill,decode}-backend, --mamba-radix-cache-strategy, and the prefill
      // graphs (SGLang's piecewise graphs) --disable-prefill-cuda-graph, --cuda-graph-max-bs-
      // prefill, --cuda-graph-bs-prefill, --cuda-graph-tc-compiler.
      {"--nsa-prefill-backend",
       {"--dsa-prefill-backend"},
       FlagType::kString,
       true,
       {"flashmla_sparse", "flashmla_kv", "flashmla_auto", "fa3", "tilelang", "aiter", "trtllm"}},
      {"--nsa-decode-backend",
       {"--dsa-decode-backend"},
       FlagType::kString,
       true,
       {"flashmla_sparse", "flashmla_kv", "flashmla_auto", "fa3", "tilelang", "aiter", "trtllm"}},
      {"--speculative-algorithm",
       {},
       FlagType::kString,
       true,
       // v0.5.21 takes any registered name; its help lists DFLASH, DSPARK and UNO besides
       // these (refused below).
       {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO"}},
      {"--speculative-draft-model-path",
       {"--speculative-draft-model"},
       FlagType::kString,
       true,
       {}},
      {"--speculative-num-steps", {}, FlagType::kInt, true, {}},
      {"--speculative-eagle-topk", {}, FlagType::kInt, true, {}},
      {"--speculative-num-draft-tokens", {}, FlagType::kInt, true, {}},
      {"--swa-full-tokens-ratio", {}, FlagType::kFloat, true, {}},
      // sglang v0.5.9 server_args.py: the recurrent-state cache of hybrid linear-attention
      // models (engine/sglang/mamba_cache.h); no effect on other models.
      {"--mamba-ssm-dtype", {}, FlagType::kString, true, {"float32", "bfloat16", "float16"}},
      {"--mamba-full-memory-ratio", {}, FlagType::kFloat, true, {}},
      {"--max-mamba-cache-size", {}, FlagType::kInt, true, {}},
      {"--mamba-scheduler-strategy",
       {"--mamba-radix-cache-strategy"},
       FlagType::kString,
       true,
       {"auto", "no_buffer", "extra_buffer"}},
      // Without radix cache a hybrid model's request keeps one state slot, not three
      // (calculate_mamba_ratio); other models' start-up memory does not change.
      {"--disable-radix-cache", {}, FlagType::kBool, true, {}},
      {"--enable-symm-mem", {}, FlagType::kBool, true, {}},
      // sglang v0.5.9 configs/model_config.py ModelConfig.__init__: multimodal serving, off by
      // default for Gemma3ForConditionalGeneration (mm_disabled_models).
      {"--enable-multimodal", {}, FlagType::kBool, true, {}},
      {"--enable-piecewise-cuda-graph", {}, FlagType::kBool, true, {}},
      // sglang v0.5.21 (PR #23906's graph backends; arg_groups fields): "disabled" is what
      // --disable-cuda-graph (decode) and --disable-piecewise-cuda-graph (prefill) were,
      // "full" the graphs those releases capture; "breakable" is refused below.
      {"--cuda-graph-backend-decode",
       {},
       FlagType::kString,
       true,
       {"full", "breakable", "disabled"}},
      {"--cuda-graph-backend-prefill",
       {},
       FlagType::kString,
       true,
       {"full", "breakable", "disabled"}},
      {"--disable-piecewise-cuda-graph",
       {"--disable-prefill-cuda-graph"},
       FlagType::kBool,
       true,
       {}},
      // server_args.py: the piecewise graphs' token sizes (default: the ladder up to
      // chunked_prefill_size, 2048 for MLA); each size reserves 8 MiB in the automatic
      // --mem-fraction-static (the graphs' own pool is slack, not modelled).
      {"--piecewise-cuda-graph-max-tokens",
       {"--cuda-graph-max-bs-prefill"},
       FlagType::kInt,
       true,
       {}},
      {"--piecewise-cuda-graph-tokens", {"--cuda-graph-bs-prefill"}, FlagType::kIntList, true, {}},
      // sglang v0.5.9 server_args.py piecewise_cuda_graph_compiler: "eager" (the default, what
      // gpumem models) runs the pieces as they are; "inductor" compiles them (refused in
      // plan_checks.cc).
      {"--piecewise-cuda-graph-compiler",
       {"--cuda-graph-tc-compiler"},
       FlagType::kString,
       true,
       {"eager", "inductor"}},
      {"--enable-flashinfer-allreduce-fusion", {}, FlagType::kBool, true, {}},
      {"--enable-deterministic-inference", {}, FlagType::kBool, true, {}},
      {"--quantization", {}, FlagType::kString, true, {}},
      // The model reference when the scenario has no `model:` (engine/model_resolution.h);
      // not a memory knob a sweep varies or explain carries over from a log.
      {"--model-path", {"--model"}, FlagType::kString, false, {}},
      // Accepted so a real command line can be pasted; no effect on start-up memory.
      {"--tokenizer-path", {}, FlagType::kString, false, {}},
      {"--served-model-name", {}, FlagType::kString, false, {}},
      {"--trust-remote-code", {}, FlagType::kBool, false, {}},
      {"--host", {}, FlagType::kString, false, {}},
      {"--port", {}, FlagType::kInt, false, {}},
      {"--nnodes", {}, FlagType::kInt, false, {}},
      {"--node-rank", {}, FlagType::kInt, false, {}},
      {"--dist-init-addr", {"--nccl-init-addr"}, FlagType::kString, false, {}},
      {"--log-level", {}, FlagType::kString, false, {}},
      {"--enable-metrics", {}, FlagType::kBool, false, {}},
      {"--reasoning-parser", {}, FlagType::kString, false, {}},
      {"--tool-call-parser", {}, FlagType::kString, false, {}},
      {"--random-seed", {}, FlagType::kInt, false, {}},
      {"--load-format", {}, FlagType::kString, false, {}},
      {"--revision", {}, FlagType::kString, false, {}},
      {"--download-dir", {}, FlagType::kString, false, {}},
      {"--chat-template", {}, FlagType::kString, false, {}},
      {"--schedule-policy", {}, FlagType::kString, false, {}},
      {"--watchdog-timeout", {}, FlagType::kFloat, false, {}},
      // sglang v0.5.9 server_args.py tool_server: gpt-oss's built-in tool servers ("demo" or
      // URLs), called by the HTTP server; no device memory.
      {"--tool-server", {}, FlagType::kString, false, {}},
      // sglang v0.5.9 server_args.py default_chat_template_kwargs: keyword arguments for the
      // chat template, applied by the tokenizer manager; device: the platform, of which gpumem
      // models CUDA only.
      {"--default-chat-template-kwargs", {}, FlagType::kString, false, {}},
      {"--device", {}, FlagType::kString, false, {"cuda"}},
      // sglang v0.5.9 server_args.py: the HTTP API key, request and metrics logging, the
      // tokenizer's mode, file and dump folders, the server's warm-up request, scheduling
      // policy knobs (admission conservativeness, mixing prefill chunks into decode batches,
      // the streaming interval) and the grammar backend, whose token bitmasks are per request
      // at run time. None allocates device memory during start-up.
      {"--api-key", {}, FlagType::kString, false, {}},
      {"--log-requests", {}, FlagType::kBool, false, {}},
      {"--log-requests-level", {}, FlagType::kInt, false, {}},
      {"--log-level-http", {}, FlagType::kString, false, {}},
      {"--enable-cache-report", {}, FlagType::kBool, false, {}},
      {"--collect-tokens-histogram", {}, FlagType::kBool, false, {}},
      {"--decode-log-interval", {}, FlagType::kInt, false, {}},
      {"--enable-request-time-stats-logging", {}, FlagType::kBool, false, {}},
      {"--show-time-cost", {}, FlagType::kBool, false, {}},
      {"--crash-dump-folder", {}, FlagType::kString, false, {}},
      {"--file-storage-path", {}, FlagType::kString, false, {}},
      {"--tokenizer-mode", {}, FlagType::kString, false, {"auto", "slow"}},
      {"--skip-server-warmup", {}, FlagType::kBool, false, {}},
      {"--allow-auto-truncate", {}, FlagType::kBool, false, {}},
      {"--enable-p2p-check", {}, FlagType::kBool, false, {}},
      {"--schedule-conservativeness", {}, FlagType::kFloat, false, {}},
      {"--enable-mixed-chunk", {}, FlagType::kBool, false, {}},
      {"--stream-interval", {}, FlagType::kInt, false, {}},
      {"--grammar-backend", {}, FlagType::kString, false, {}},
      // sglang v0.5.9 server_args.py load_balance_method: how the DP controller spreads
      // requests; disaggregation_transfer_backend / disaggregation_ib_device: the KV transfer's
      // transport, used only with --disaggregation-mode (refused below).
      {"--load-balance-method", {}, FlagType::kString, false, {}},
      {"--disaggregation-transfer-backend", {}, FlagType::kString, false, {}},
      {"--disaggregation-ib-device", {}, FlagType::kString, false, {}},
      // sglang v0.5.9 server_args.py: the scheduler's overlap thread (its future-token map is
      // a few KiB per running request), decode steps between scheduling rounds, the sampling
      // kernels, the distributed init timeout, tokenizer workers and mmap-less weight reading
      // (host side), admission and priority scheduling, and multimodal options that act per
      // request at run time (the encoder attention kernels, keeping features on the device,
      // per-request custom logit processors). None allocates device memory during start-up.
      {"--disable-overlap-schedule", {}, FlagType::kBool, false, {}},
      {"--num-continuous-decode-steps", {}, FlagType::kInt, false, {}},
      {"--sampling-backend", {}, FlagType::kString, false, {}},
      {"--dist-timeout", {}, FlagType::kInt, false, {}},
      {"--tokenizer-worker-num", {}, FlagType::kInt, false, {}},
      {"--weight-loader-disable-mmap", {}, FlagType::kBool, false, {}},
      {"--prefill-round-robin-balance", {}, FlagType::kBool, false, {}},
      {"--enable-priority-scheduling", {}, FlagType::kBool, false, {}},
      {"--max-queued-requests", {}, FlagType::kInt, false, {}},
      {"--mm-attention-backend", {}, FlagType::kString, false, {}},
      {"--keep-mm-feature-on-device", {}, FlagType::kBool, false, {}},
      {"--enable-custom-logit-processor", {}, FlagType::kBool, false, {}},
      // sglang v0.5.9 server_args.py enable_hierarchical_cache, enable_nccl_nvls,
      // model_loader_extra_config.
      {"--enable-hierarchical-cache",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "the hierarchical cache keeps a host copy of the KV pool and transfer buffers that "
       "gpumem does not model"},
      {"--enable-nccl-nvls",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "NCCL's NVLink SHARP buffers for the all-reduce are not modelled"},
      {"--model-loader-extra-config",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "loader options can change where and how the weights are placed",
       "{}"},
      // The engine has these; their memory effect is not modelled, so a command that sets
      // them is refused (engine/flag_table.h). sglang v0.5.9 server_args.py:
      // enable_torch_compile, torch_compile_max_bs, moe_runner_backend.
      {"--enable-torch-compile",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "the model is compiled with torch.compile for the CUDA graphs of batch sizes up to "
       "--torch-compile-max-bs, whose memory gpumem's graph model does not cover"},
      {"--torch-compile-max-bs",
       {},
       FlagType::kInt,
       true,
       {},
       false,
       "it sizes the torch.compile graphs of --enable-torch-compile, which gpumem does not "
       "model"},
      {"--moe-runner-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "gpumem models the MoE kernels SGLang chooses itself (auto); another runner has its own "
       "weight layout and workspaces"},
      // sglang v0.5.9 server_args.py enable_memory_saver, enable_lora / lora_paths,
      // json_model_override_args.
      {"--enable-memory-saver",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "weights and KV cache are allocated through torch_memory_saver's virtual-memory "
       "regions instead of PyTorch's caching allocator"},
      {"--enable-lora",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "LoRA adapter weights and their buffers (lora/mem_pool.py) are not modelled"},
      // sglang v0.5.9 server_args.py torchao_config (layers/torchao_utils.py quantizes each
      // linear after loading), enable_flashinfer_mla (v0.4.x: FlashInfer's MLA backend, later
      // --attention-backend flashinfer).
      {"--torchao-config",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "torchao quantizes every linear layer after the weights are loaded, which shrinks them "
       "before the KV pool is sized"},
      {"--enable-flashinfer-mla",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "FlashInfer's MLA backend of the 0.4 releases has workspaces gpumem does not model"},
      {"--lora-paths",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "it enables LoRA, whose adapter weights and buffers (lora/mem_pool.py) are not "
       "modelled"},
      // sglang v0.5.9 server_args.py: the expert-parallel and large-scale serving options
      // moe_a2a_backend, deepep_mode, moe_dense_tp_size, enable_dp_lm_head, enable_eplb,
      // ep_num_redundant_experts, enable_two_batch_overlap, disable_shared_experts_fusion,
      // disaggregation_mode, prefill/decode_attention_backend.
      {"--moe-a2a-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "an all-to-all backend (DeepEP, Mooncake) allocates communication buffers of its own, "
       "which gpumem does not model",
       "none"},
      {"--enable-deepep-moe",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "DeepEP's all-to-all buffers are not modelled"},
      {"--deepep-mode",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "it sizes DeepEP's all-to-all buffers, which gpumem does not model"},
      {"--moe-dense-tp-size",
       {},
       FlagType::kInt,
       true,
       {},
       false,
       "it shards the dense MLP layers over fewer ranks than the attention, a weight layout "
       "gpumem does not model"},
      {"--enable-dp-lm-head",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "the vocabulary head is split within each DP attention group instead of over all ranks, "
       "a weight layout gpumem does not model"},
      {"--enable-eplb",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "expert-parallel load balancing keeps redundant experts' weights on every rank"},
      {"--ep-num-redundant-experts",
       {},
       FlagType::kInt,
       true,
       {},
       false,
       "redundant experts add expert weights on every rank"},
      {"--enable-two-batch-overlap",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "two micro-batches change the activations and the CUDA graphs captured"},
      {"--disable-shared-experts-fusion",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "gpumem models SGLang's own choice of fusing the shared experts into the routed ones"},
      {"--disaggregation-mode",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "a prefill or decode server of a disaggregated deployment has KV-transfer buffers and "
       "start-up rules of its own",
       "null"},
      {"--prefill-attention-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "gpumem models one attention backend for prefill and decode (--attention-backend)"},
      {"--decode-attention-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "gpumem models one attention backend for prefill and decode (--attention-backend)"},
      // engine/config_overrides.h: max_position_embeddings and rope_scaling applied.
      {"--json-model-override-args", {}, FlagType::kString, true, {}},
  };
  static const std::vector<FlagSpec> kOlder = retired_flag_specs(older_release_flags());
  static const std::vector<FlagSpec> kWithNewest =
      joined_tables({kTable, host_side_flags(), unmodelled_flags(), kOlder});
  return kWithNewest;
}

}  // namespace

std::span<const FlagSpec> flag_table() { return table(); }

namespace {

// Values of the newest release's choices whose memory gpumem does not model (sglang v0.5.21
// arg_groups/choices.py at 0099dee6, server_args.py).
constexpr RefusedValue kRefusedValues[] = {
    {"--attention-backend", "qsa", "its sparse-attention kernels and their buffers"},
    {"--attention-backend", "dsv4", "DeepSeek-V4's compressed sparse attention"},
    {"--attention-backend", "compressed", "DeepSeek-V4's compressed sparse attention"},
    {"--attention-backend", "cutedsl_mla", "its MLA kernels' workspaces and graph buffers"},
    {"--attention-backend", "tokenspeed_mla", "its MLA kernels' workspaces and graph buffers"},
    {"--attention-backend", "hpc_ops", "its kernels' workspaces and graph buffers"},
    {"--attention-backend", "minicpm_flashattn", "MiniCPM's sparse attention"},
    {"--attention-backend", "minicpm_flashinfer", "MiniCPM's sparse attention"},
    {"--attention-backend", "intel_xpu", "Intel GPUs (gpumem models NVIDIA GPUs)"},
    {"--attention-backend", "mlu", "Cambricon MLUs (gpumem models NVIDIA GPUs)"},
    {"--kv-cache-dtype", "mxfp8", "an MXFP8 KV cache (8-bit cells and block scales)"},
    {"--kv-cache-dtype", "nvfp4", "an NVFP4 KV cache (4-bit cells and block scales)"},
    {"--kv-cache-dtype", "fp4_mx_block16", "an FP4 KV cache with a scale per 16 values"},
    {"--speculative-algorithm", "DFLASH", "DFlash's block-diffusion draft model and buffers"},
    {"--speculative-algorithm", "DSPARK", "its draft model and buffers"},
    {"--speculative-algorithm", "UNO", "its draft model and buffers"},
    {"--cuda-graph-backend-decode", "breakable", "breakable decode graphs"},
    {"--cuda-graph-backend-prefill", "breakable", "breakable prefill graphs"},
};

}  // namespace

ServerFlags read_server_flags(const ScenarioEngine& engine, Diagnostics& diags) {
  ServerFlags f;
  f.raw = read_flags(engine.args, table(), "SGLang", diags);
  const FlagValues& v = f.raw;
  f.tp_size = positive_flag(v, "--tp-size", 1, diags);
  f.pp_size = positive_flag(v, "--pp-size", 1, diags);
  f.dp_size = positive_flag(v, "--dp-size", 1, diags);
  f.ep_size = positive_flag(v, "--ep-size", 1, diags);
  f.enable_dp_attention = v.boolean("--enable-dp-attention");
  if (std::optional<double> mfs = v.number("--mem-fraction-static")) {
    if (*mfs <= 0 || *mfs >= 1) {
      diags.error(*v.location("--mem-fraction-static"),
                  "--mem-fraction-static must be between 0 and 1, got " + python_float_repr(*mfs));
    } else {
      f.mem_fraction_static = *mfs;
    }
  }
  // utils/offloader.py create_offloader: an offloader only above 0 GiB.
  f.cpu_offload_gb = std::max<std::int64_t>(v.integer("--cpu-offload-gb").value_or(0), 0);
  f.max_running_requests = positive_flag_opt(v, "--max-running-requests", diags);
  f.max_total_tokens = positive_flag_opt(v, "--max-total-tokens", diags);
  f.context_length = positive_flag_opt(v, "--context-length", diags);
  f.chunked_prefill_size = v.integer("--chunked-prefill-size");
  if (std::optional<std::int64_t> p = positive_flag_opt(v, "--max-prefill-tokens", diags)) {
    f.max_prefill_tokens = *p;
  }
  f.cuda_graph_max_bs = positive_flag_opt(v, "--cuda-graph-max-bs", diags);
  f.cuda_graph_bs = v.int_list("--cuda-graph-bs");
  if (f.cuda_graph_bs) {
    for (std::int64_t bs : *f.cuda_graph_bs) {
      if (bs < 1) {
        diags.error(*v.location("--cuda-graph-bs"),
                    "--cuda-graph-bs sizes must be positive, got " + std::to_string(bs));
        break;
      }
    }
  }
  f.disable_cuda_graph =
      v.boolean("--disable-cuda-graph") || v.string("--cuda-graph-backend-decode") == "disabled";
  f.disable_cuda_graph_padding = v.boolean("--disable-cuda-graph-padding");
  f.disable_custom_all_reduce = v.boolean("--disable-custom-all-reduce");
  f.kv_cache_dtype = v.string("--kv-cache-dtype").value_or("auto");
  f.dtype = v.string("--dtype").value_or("auto");
  f.page_size = positive_flag_opt(v, "--page-size", diags);
  f.attention_backend = v.string("--attention-backend");
  if (f.attention_backend == "dsa") f.attention_backend = "nsa";
  f.nsa_prefill_backend = v.string("--nsa-prefill-backend");
  f.nsa_decode_backend = v.string("--nsa-decode-backend");
  f.speculative_algorithm = v.string("--speculative-algorithm");
  f.speculative_draft_model = v.string("--speculative-draft-model-path");
  f.speculative_num_steps = positive_flag_opt(v, "--speculative-num-steps", diags);
  f.speculative_eagle_topk = positive_flag_opt(v, "--speculative-eagle-topk", diags);
  f.speculative_num_draft_tokens = positive_flag_opt(v, "--speculative-num-draft-tokens", diags);
  if (std::optional<double> r = v.number("--swa-full-tokens-ratio")) {
    if (*r <= 0 || *r > 1) {
      diags.error(*v.location("--swa-full-tokens-ratio"),
                  "--swa-full-tokens-ratio must be in (0, 1]");
    } else {
      f.swa_full_tokens_ratio = *r;
    }
  }
  f.mamba_ssm_dtype = v.string("--mamba-ssm-dtype").value_or("float32");
  if (std::optional<double> r = v.number("--mamba-full-memory-ratio")) {
    if (*r <= 0) {
      diags.error(*v.location("--mamba-full-memory-ratio"),
                  "--mamba-full-memory-ratio must be positive");
    } else {
      f.mamba_full_memory_ratio = *r;
    }
  }
  f.max_mamba_cache_size = positive_flag_opt(v, "--max-mamba-cache-size", diags);
  f.mamba_scheduler_strategy = v.string("--mamba-scheduler-strategy").value_or("auto");
  f.disable_radix_cache = v.boolean("--disable-radix-cache");
  f.enable_symm_mem = v.boolean("--enable-symm-mem");
  f.enable_multimodal = v.boolean("--enable-multimodal");
  f.enable_piecewise_cuda_graph = v.boolean("--enable-piecewise-cuda-graph") ||
                                  v.string("--cuda-graph-backend-prefill") == "full";
  f.disable_piecewise_cuda_graph = v.boolean("--disable-piecewise-cuda-graph") ||
                                   v.string("--cuda-graph-backend-prefill") == "disabled";
  refuse_values(v, kRefusedValues, diags);
  f.piecewise_cuda_graph_max_tokens = v.integer("--piecewise-cuda-graph-max-tokens");
  f.piecewise_cuda_graph_tokens = v.int_list("--piecewise-cuda-graph-tokens");
  f.enable_flashinfer_allreduce_fusion = v.boolean("--enable-flashinfer-allreduce-fusion");
  f.enable_deterministic_inference = v.boolean("--enable-deterministic-inference");
  f.quantization = v.string("--quantization");

  // EAGLE without a draft may draft with the model's own MTP layer (plan.cc resolve_draft).
  const bool needs_draft = f.speculative_algorithm && (*f.speculative_algorithm == "EAGLE3" ||
                                                       *f.speculative_algorithm == "STANDALONE");
  if (needs_draft && !f.speculative_draft_model) {
    diags.error(*v.location("--speculative-algorithm"),
                "--speculative-algorithm " + *f.speculative_algorithm +
                    " needs --speculative-draft-model-path");
  }
  if (f.speculative_draft_model && !f.speculative_algorithm) {
    diags.error(*v.location("--speculative-draft-model-path"),
                "--speculative-draft-model-path is given without --speculative-algorithm");
  }
  return f;
}

}  // namespace gpumem::sglang
