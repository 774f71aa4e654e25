#include "engine/vllm/flags.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/python_format.h"
#include "engine/refused_values.h"
#include "engine/vllm/flag_json.h"
#include "engine/vllm/newest_flags.h"
#include "engine/vllm/older_flags.h"

namespace gpumem::vllm {
namespace {

// vllm v0.21 engine/arg_utils.py EngineArgs.add_cli_args: names, aliases and choices.
const std::vector<FlagSpec>& table() {
  static const std::vector<FlagSpec> kTable = {
      {"--tensor-parallel-size", {"-tp"}, FlagType::kInt, true, {}},
      {"--pipeline-parallel-size", {"-pp"}, FlagType::kInt, true, {}},
      {"--data-parallel-size", {"-dp"}, FlagType::kInt, true, {}},
      {"--gpu-memory-utilization", {}, FlagType::kFloat, true, {}},
      // vllm engine/arg_utils.py: type=human_readable_int_or_auto ("32k", "128K", "auto" = -1).
      {"--max-model-len", {}, FlagType::kInt, true, {}, true, {}, {}, true},
      {"--max-num-seqs", {}, FlagType::kInt, true, {}},
      {"--max-num-batched-tokens", {}, FlagType::kInt, true, {}, true},
      {"--kv-cache-dtype",
       {},
       FlagType::kString,
       true,
       // The v0.29-era CacheDType (config/cache.py at 4897bc66) adds the rest; those past
       // float16 are refused by name (kRefusedValues).
       {"auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "float16", "fp8_inc", "fp8_ds_mla",
        "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc",
        "turboquant_3bit_nc", "int4_per_token_head", "int8_per_token_head", "fp8_per_token_head",
        "nvfp4", "nvfp4_4over6"}},
      {"--block-size", {}, FlagType::kInt, true, {}},
      {"--enforce-eager", {}, FlagType::kBool, true, {}},
      // vllm engine/arg_utils.py _compute_kwargs: kv_cache_memory_bytes is a human_readable_int
      // too ("20G" = 20 GiB).
      {"--kv-cache-memory", {"--kv-cache-memory-bytes"}, FlagType::kByteCount, true, {}, true},
      {"--num-gpu-blocks-override", {}, FlagType::kInt, true, {}},
      {"--cuda-graph-sizes", {}, FlagType::kIntList, true, {}},
      {"--cudagraph-capture-sizes", {}, FlagType::kIntList, true, {}},
      {"--max-cudagraph-capture-size", {}, FlagType::kInt, true, {}},
      // vllm v0.21 engine/arg_utils.py add_cli_args: "--compilation-config", "-cc"; "-O<n>" is
      // --optimization-level from v0.12.0, a compilation level before (read_compilation_config).
      {"--compilation-config", {"-O", "-cc"}, FlagType::kString, true, {}},
      {"--optimization-level", {}, FlagType::kInt, true, {}},
      {"--disable-custom-all-reduce", {}, FlagType::kBool, true, {}},
      // "-sc" and "-ep": vllm 4897bc66 (v0.29-era main) engine/arg_utils.py add_cli_args.
      {"--speculative-config", {"-sc"}, FlagType::kString, true, {}},
      {"--dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "half", "float16", "bfloat16", "float", "float32"}},
      {"--quantization", {"-q"}, FlagType::kString, true, {}},
      {"--enable-expert-parallel", {"-ep"}, FlagType::kBool, true, {}},
      // The model reference when the scenario has no `model:` (engine/model_resolution.h);
      // not a memory knob a sweep varies or explain carries over from a log.
      {"--model", {}, FlagType::kString, false, {}},
      // vllm utils FlexibleArgumentParser: a YAML file of flags, read by the launch-command
      // reader (launch/launch_command.h); in a scenario's args it names nothing gpumem reads.
      {"--config", {}, FlagType::kString, false, {}},
      // vllm config/model.py served_model_name: one or more names (nargs "+").
      {"--served-model-name", {}, FlagType::kList, false, {}},
      {"--tokenizer", {}, FlagType::kString, false, {}},
      {"--trust-remote-code", {}, FlagType::kBool, false, {}},
      {"--host", {}, FlagType::kString, false, {}},
      {"--port", {}, FlagType::kInt, false, {}},
      {"--api-key", {}, FlagType::kString, false, {}},
      {"--download-dir", {}, FlagType::kString, false, {}},
      {"--load-format", {}, FlagType::kString, false, {}},
      {"--revision", {}, FlagType::kString, false, {}},
      {"--seed", {}, FlagType::kInt, false, {}},
      {"--chat-template", {}, FlagType::kString, false, {}},
      // vllm v0.11.0 entrypoints/openai/cli_args.py default_chat_template_kwargs: passed to the
      // chat template by the API server. config/model.py runner: "auto" and "generate" serve a
      // generative model as gpumem models it; "pooling" (no KV cache) and "draft" are refused.
      {"--default-chat-template-kwargs", {}, FlagType::kString, false, {}},
      {"--runner", {}, FlagType::kString, true, {"auto", "generate", "pooling", "draft"}},
      // Prefix caching changes start-up memory only for hybrid models, whose state pages per
      // request it doubles ("align" mode: model_facts.h).
      {"--enable-prefix-caching", {}, FlagType::kBool, true, {}},
      {"--no-enable-prefix-caching", {}, FlagType::kBool, true, {}},
      // vllm config/cache.py CacheConfig mamba_cache_dtype / mamba_ssm_cache_dtype: the state
      // pages of hybrid linear-attention models; "auto" is the model dtype.
      {"--mamba-cache-dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "float32", "float16", "bfloat16"}},
      {"--mamba-ssm-cache-dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "float32", "float16", "bfloat16"}},
      // Off, the encoder profile holds at most max_num_batched_tokens // T images
      // (encoder_profile.h).
      {"--enable-chunked-prefill", {}, FlagType::kBool, true, {}},
      {"--disable-log-stats", {}, FlagType::kBool, false, {}},
      {"--enable-auto-tool-choice", {}, FlagType::kBool, false, {}},
      {"--tool-call-parser", {}, FlagType::kString, false, {}},
      {"--reasoning-parser", {}, FlagType::kString, false, {}},
      {"--generation-config", {}, FlagType::kString, false, {}},
      {"--max-logprobs", {}, FlagType::kInt, false, {}},
      // config/cache.py CacheConfig.cpu_offload_gb (config/offload.py OffloadConfig later):
      // GiB of each GPU's decoder-layer parameters moved to CPU memory (weights/cpu_offload.h).
      {"--cpu-offload-gb", {}, FlagType::kFloat, true, {}},
      {"--distributed-executor-backend", {}, FlagType::kString, false, {}},
      {"--uvicorn-log-level", {}, FlagType::kString, false, {}},
      {"--async-scheduling", {}, FlagType::kBool, false, {}},
      // vllm v0.21 config/scheduler.py SchedulerConfig.stream_interval: how many tokens the
      // server buffers before it streams them to a client; no device memory.
      {"--stream-interval", {}, FlagType::kInt, false, {}},
      // vllm v0.21 entrypoints/openai/cli_args.py FrontendArgs and engine/arg_utils.py: the
      // HTTP server's logging, security, documentation and response options, the tokenizer's
      // mode and revisions, and the number of weight-loading workers (host threads). None
      // allocates device memory.
      {"--enable-log-requests", {}, FlagType::kBool, false, {}},
      {"--max-log-len", {}, FlagType::kInt, false, {}},
      {"--disable-uvicorn-access-log", {}, FlagType::kBool, false, {}},
      {"--disable-fastapi-docs", {}, FlagType::kBool, false, {}},
      {"--allowed-origins", {}, FlagType::kString, false, {}},
      {"--ssl-keyfile", {}, FlagType::kString, false, {}},
      {"--ssl-certfile", {}, FlagType::kString, false, {}},
      {"--root-path", {}, FlagType::kString, false, {}},
      {"--response-role", {}, FlagType::kString, false, {}},
      {"--enable-prompt-tokens-details", {}, FlagType::kBool, false, {}},
      {"--enable-force-include-usage", {}, FlagType::kBool, false, {}},
      {"--enable-request-id-headers", {}, FlagType::kBool, false, {}},
      {"--return-tokens-as-token-ids", {}, FlagType::kBool, false, {}},
      {"--enable-server-load-tracking", {}, FlagType::kBool, false, {}},
      {"--override-generation-config", {}, FlagType::kString, false, {}},
      {"--tokenizer-mode", {}, FlagType::kString, false, {}},
      {"--tokenizer-revision", {}, FlagType::kString, false, {}},
      {"--code-revision", {}, FlagType::kString, false, {}},
      {"--max-parallel-loading-workers", {}, FlagType::kInt, false, {}},
      // vllm engine/arg_utils.py config_format (auto, hf, mistral): which file describes the
      // model (config.json or Mistral's params.json) -- the same architecture either way, and
      // the weights still come from --load-format.
      {"--config-format", {}, FlagType::kString, false, {}},
      // vllm v0.21 engine/arg_utils.py and entrypoints/openai/cli_args.py: output logging,
      // KV-cache event publishing, scheduler policies and partial-prefill limits, how weights
      // are read and which files are downloaded, tracing, tokenizer skipping, local media,
      // frontend middleware and logging, the data-parallel wiring of a node (its local size,
      // address, port and start rank; headless engines; API server processes), structured
      // outputs (grammar bitmasks are per step at run time), the host-side multimodal
      // processor cache and worker extension classes. None allocates device memory during
      // start-up.
      {"--enable-log-outputs", {}, FlagType::kBool, false, {}},
      {"--kv-events-config", {}, FlagType::kString, false, {}},
      {"--scheduling-policy", {}, FlagType::kString, false, {}},
      {"--long-prefill-token-threshold", {}, FlagType::kInt, false, {}},
      {"--safetensors-load-strategy", {}, FlagType::kString, false, {}},
      {"--ignore-patterns", {}, FlagType::kString, false, {}},
      {"--otlp-traces-endpoint", {}, FlagType::kString, false, {}},
      {"--collect-detailed-traces", {}, FlagType::kString, false, {}},
      {"--skip-tokenizer-init", {}, FlagType::kBool, false, {}},
      {"--allowed-local-media-path", {}, FlagType::kString, false, {}},
      {"--middleware", {}, FlagType::kString, false, {}},
      {"--log-config-file", {}, FlagType::kString, false, {}},
      {"--show-hidden-metrics-for-version", {}, FlagType::kString, false, {}},
      {"--data-parallel-size-local", {"-dpl"}, FlagType::kInt, false, {}},
      {"--data-parallel-address", {"-dpa"}, FlagType::kString, false, {}},
      {"--data-parallel-rpc-port", {"-dpp"}, FlagType::kInt, false, {}},
      {"--data-parallel-start-rank", {"-dpr"}, FlagType::kInt, false, {}},
      {"--headless", {}, FlagType::kBool, false, {}},
      {"--api-server-count", {"-asc"}, FlagType::kInt, false, {}},
      {"--structured-outputs-config", {}, FlagType::kString, false, {}},
      {"--mm-processor-cache-gb", {}, FlagType::kFloat, false, {}},
      {"--worker-extension-cls", {}, FlagType::kString, false, {}},
      // vllm v0.21: platform options (config/vllm.py additional_config), custom logits
      // processors built with per-request state at start-up (v1/sample/logits_processor),
      // cascade attention (config/model.py disable_cascade_attn), loader options
      // (model_loader_extra_config), prompt embeddings (the model runner's inputs_embeds
      // buffer), LoRA modules, the expert-parallel all-to-all backend and dual-batch overlap.
      {"--additional-config",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "platform-specific options, which gpumem does not read",
       "{}"},
      {"--logits-processors",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "custom logits processors keep per-request state that gpumem does not model"},
      {"--disable-cascade-attn",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "gpumem models the attention metadata with cascade attention as vLLM chooses it"},
      {"--model-loader-extra-config",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "loader options can change where and how the weights are placed",
       "{}"},
      {"--enable-prompt-embeds",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "the model runner keeps an inputs_embeds buffer of max-num-batched-tokens rows"},
      {"--lora-modules",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "LoRA adapter slots and the punica kernels' buffers are not modelled"},
      {"--all2all-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "the expert-parallel all-to-all backends (DeepEP, pplx) allocate buffers of their own",
       "allgather_reducescatter"},
      {"--enable-dbo",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "dual-batch overlap splits batches into micro-batches with buffers of their own"},
      // The engine has these; their memory effect is not modelled, so a command that sets
      // them is refused (engine/flag_table.h).
      // vllm v0.21 config/model.py ModelConfig.enable_sleep_mode.
      {"--enable-sleep-mode",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "weights and KV cache are allocated from vLLM's CuMemAllocator pool "
       "(device_allocator/cumem.py) instead of PyTorch's caching allocator"},
      // vllm v0.21 config/attention.py AttentionConfig.backend; read once the backend vLLM
      // would choose is known (plan_checks.h attention_backend_refusal).
      {"--attention-backend", {}, FlagType::kString, true, {}},
      // vllm config/multimodal.py MultiModalConfig: a limit of 0 images and 0 videos, or
      // --language-model-only (PR #34120), serves the language model alone; the Qwen-VL
      // classes then build no vision tower (interfaces.py _mark_tower_model).
      {"--limit-mm-per-prompt", {}, FlagType::kString, true, {}},
      {"--language-model-only", {}, FlagType::kBool, true, {}},
      // vllm v0.21 config/multimodal.py MultiModalConfig.mm_encoder_tp_mode: "weights" (the
      // default) shards the encoder as gpumem models it; "data" replicates it on every rank.
      {"--mm-encoder-tp-mode",
       {},
       FlagType::kString,
       true,
       {"weights", "data"},
       false,
       "'data' replicates the multimodal encoder's weights on every TP rank and splits its "
       "dummy items over them, which gpumem does not model",
       "weights"},
      // vllm config/multimodal.py MultiModalConfig.mm_processor_kwargs: max_pixels (or size)
      // sets the dummy image the encoder profile runs on (refused with a profiled encoder,
      // vllm/plan.cc); a model without one has no multimodal processor.
      {"--mm-processor-kwargs", {}, FlagType::kString, true, {}},
      // vllm v0.21 config/model.py ModelConfig.hf_overrides: max_position_embeddings and
      // rope_scaling applied (engine/config_overrides.h), other keys refused there.
      {"--hf-overrides", {}, FlagType::kString, true, {}},
      // config/lora.py LoRAConfig, config/parallel.py enable_eplb, config/kv_transfer.py
      // KVTransferConfig.
      {"--enable-lora",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "LoRA adapter slots and the punica kernels' buffers are not modelled"},
      {"--enable-eplb",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "expert-parallel load balancing adds redundant experts' weights on every rank"},
      {"--kv-transfer-config",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "a KV connector (disaggregated prefill, offloading) allocates buffers of its own"},
  };
  static const std::vector<FlagSpec> kOlder = retired_flag_specs(older_release_flags());
  static const std::vector<FlagSpec> kWithNewest =
      joined_tables({kTable, host_side_flags(), unmodelled_flags(), kOlder});
  return kWithNewest;
}

// vllm config/cache.py BlockSize: the block sizes the CLI accepts.
constexpr std::array<std::int64_t, 7> kBlockSizes = {1, 8, 16, 32, 64, 128, 256};

// The v0.29-era CacheDType values (config/cache.py at 4897bc66) whose cells gpumem does not lay
// out; fp8_ds_mla is what --kv-cache-dtype fp8 stores for DeepSeek Sparse Attention, modelled
// when asked for that way.
constexpr std::string_view kKvLayoutNotModelled =
    "its cells and scales are laid out by rules gpumem does not have";
constexpr RefusedValue kRefusedValues[] = {
    {"--kv-cache-dtype", "fp8_ds_mla",
     "give --kv-cache-dtype fp8, which vLLM stores as fp8_ds_mla for a DeepSeek Sparse "
     "Attention model, and which is"},
    {"--kv-cache-dtype", "fp8_inc", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "nvfp4_ds_mla", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "turboquant_k8v4", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "turboquant_4bit_nc", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "turboquant_k3v4_nc", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "turboquant_3bit_nc", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "int4_per_token_head", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "int8_per_token_head", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "fp8_per_token_head", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "nvfp4", kKvLayoutNotModelled},
    {"--kv-cache-dtype", "nvfp4_4over6", kKvLayoutNotModelled},
};

std::optional<std::vector<std::int64_t>> positive_list(const FlagValues& v, std::string_view flag,
                                                       Diagnostics& diags) {
  std::optional<std::vector<std::int64_t>> list = v.int_list(flag);
  if (!list) return std::nullopt;
  for (std::int64_t s : *list) {
    if (s < 1) {
      diags.error(*v.location(flag),
                  std::string(flag) + " sizes must be positive, got " + std::to_string(s));
      return std::nullopt;
    }
  }
  return list;
}

// The args as vLLM's parser hands them to argparse: dashes for underscores, and from 0.12.0
// "-O<n>" (or "-O <n>") as --optimization-level, a flag of its own beside
// --compilation-config (vllm v0.12.0 utils/argparse_utils.py FlexibleArgumentParser.parse_args).
std::vector<EngineArg> as_vllm_parses(std::span<const EngineArg> args, const VersionRules& rules) {
  std::vector<EngineArg> out(args.begin(), args.end());
  for (EngineArg& a : out) {
    a.flag = dashed_flag(a.flag);
    if (a.flag == "-O" && rules.optimization_levels && a.values.size() == 1 &&
        a.values[0].size() == 1 && a.values[0][0] >= '0' && a.values[0][0] <= '3') {
      a.flag = "--optimization-level";
    }
  }
  return out;
}

}  // namespace

std::string_view cudagraph_mode_name(CudagraphMode m) {
  switch (m) {
    case CudagraphMode::kNone:
      return "NONE";
    case CudagraphMode::kPiecewise:
      return "PIECEWISE";
    case CudagraphMode::kFull:
      return "FULL";
    case CudagraphMode::kFullDecodeOnly:
      return "FULL_DECODE_ONLY";
    case CudagraphMode::kFullAndPiecewise:
      return "FULL_AND_PIECEWISE";
  }
  return "NONE";
}

std::span<const FlagSpec> flag_table() { return table(); }

std::string dashed_flag(std::string_view flag) {
  std::string out(flag);
  if (out.rfind("--", 0) == 0) std::replace(out.begin() + 2, out.end(), '_', '-');
  return out;
}

EngineFlags read_engine_flags(const ScenarioEngine& engine, const VersionRules& rules,
                              Diagnostics& diags) {
  EngineFlags f;
  f.raw = read_flags(as_vllm_parses(engine.args, rules), table(), "vLLM", diags);
  const FlagValues& v = f.raw;
  f.tp_size = positive_flag(v, "--tensor-parallel-size", 1, diags);
  f.pp_size = positive_flag(v, "--pipeline-parallel-size", 1, diags);
  f.dp_size = positive_flag(v, "--data-parallel-size", 1, diags);
  if (std::optional<double> u = v.number("--gpu-memory-utilization")) {
    // vllm config/cache.py CacheConfig: Field(gt=0, le=1).
    if (*u <= 0 || *u > 1) {
      diags.error(*v.location("--gpu-memory-utilization"),
                  "--gpu-memory-utilization must be in (0, 1], got " + python_float_repr(*u));
    } else {
      f.gpu_memory_utilization = *u;
    }
  }
  if (v.integer("--max-model-len") == -1) {
    if (!rules.max_model_len_auto) {
      diags.error(*v.location("--max-model-len"),
                  "--max-model-len auto (-1) needs vLLM 0.12.0 or newer (PR #29431)");
    }
    f.max_model_len_auto = true;
  } else {
    f.max_model_len = positive_flag_opt(v, "--max-model-len", diags);
  }
  f.max_num_seqs = positive_flag_opt(v, "--max-num-seqs", diags);
  f.max_num_batched_tokens = positive_flag_opt(v, "--max-num-batched-tokens", diags);
  f.kv_cache_dtype = v.string("--kv-cache-dtype").value_or("auto");
  refuse_values(v, kRefusedValues, diags);
  if (std::optional<std::int64_t> b = v.integer("--block-size")) {
    if (std::find(kBlockSizes.begin(), kBlockSizes.end(), *b) == kBlockSizes.end()) {
      diags.error(
          *v.location("--block-size"),
          "--block-size must be one of 1, 8, 16, 32, 64, 128, 256; got " + std::to_string(*b));
    } else {
      f.block_size = *b;
    }
  }
  f.enforce_eager = v.boolean("--enforce-eager");
  f.enable_prefix_caching_given =
      v.boolean("--enable-prefix-caching") && !v.boolean("--no-enable-prefix-caching");
  f.mamba_cache_dtype = v.string("--mamba-cache-dtype").value_or("auto");
  f.mamba_ssm_cache_dtype = v.string("--mamba-ssm-cache-dtype").value_or("auto");
  if (v.location("--kv-cache-memory") && !rules.kv_cache_memory_flag) {
    diags.error(*v.location("--kv-cache-memory"), "--kv-cache-memory needs vLLM 0.10.2 or newer");
  }
  f.kv_cache_memory_bytes = positive_flag_opt(v, "--kv-cache-memory", diags);
  if (std::optional<double> gb = v.number("--cpu-offload-gb")) {
    // vllm config/cache.py CacheConfig.cpu_offload_gb: Field(ge=0).
    if (!std::isfinite(*gb) || *gb < 0) {
      diags.error(*v.location("--cpu-offload-gb"),
                  "--cpu-offload-gb must be a number of at least 0, got " + python_float_repr(*gb));
    } else {
      f.cpu_offload_gb = *gb;
    }
  }
  f.num_gpu_blocks_override = positive_flag_opt(v, "--num-gpu-blocks-override", diags);
  // PR #26016 (v0.11.1) added the two compilation-config flags and kept --cuda-graph-sizes
  // as a deprecated spelling of --cudagraph-capture-sizes, to be removed in v0.13.0.
  f.cuda_graph_sizes = positive_list(v, "--cuda-graph-sizes", diags);
  if (v.location("--cuda-graph-sizes") && !rules.cuda_graph_sizes_flag) {
    diags.error(*v.location("--cuda-graph-sizes"),
                "'--cuda-graph-sizes' is not a flag of vLLM 0.13.0 or newer (removed in 0.13.0, "
                "as PR #26016 announced; give --cudagraph-capture-sizes or "
                "--max-cudagraph-capture-size)");
  }
  f.cudagraph_capture_sizes = positive_list(v, "--cudagraph-capture-sizes", diags);
  f.max_cudagraph_capture_size = positive_flag_opt(v, "--max-cudagraph-capture-size", diags);
  for (std::string_view flag : {"--cudagraph-capture-sizes", "--max-cudagraph-capture-size"}) {
    if (v.location(flag) && !rules.two_step_capture_sizes) {
      diags.error(*v.location(flag), std::string(flag) +
                                         " needs vLLM 0.11.1 or newer; older releases take "
                                         "--cuda-graph-sizes");
    }
  }
  if (v.location("--compilation-config")) read_compilation_config(v, f, diags);
  if (const std::optional<SourceLoc> at = v.location("--optimization-level")) {
    const std::int64_t level = v.integer("--optimization-level").value_or(-1);
    if (!rules.optimization_levels) {
      diags.error(*at,
                  "--optimization-level needs vLLM 0.12.0 or newer; older releases take "
                  "-O<level> (a compilation level)");
    } else if (level < 0 || level > 3) {
      diags.error(*at, "--optimization-level must be 0, 1, 2 or 3, got " + std::to_string(level));
    } else {
      f.optimization_level = static_cast<int>(level);
    }
  }
  if (rules.two_step_capture_sizes && f.cuda_graph_sizes && !f.cudagraph_capture_sizes) {
    f.cudagraph_capture_sizes = f.cuda_graph_sizes;
    f.cuda_graph_sizes.reset();
  }
  f.disable_custom_all_reduce = v.boolean("--disable-custom-all-reduce");
  if (v.location("--speculative-config")) read_speculative_config(v, f, diags);
  f.language_model_only = v.boolean("--language-model-only");
  f.multimodal_off = f.language_model_only;
  if (v.location("--language-model-only") && !rules.language_model_only_flag) {
    diags.error(*v.location("--language-model-only"),
                "--language-model-only needs vLLM 0.16.0 or newer; older releases take "
                "--limit-mm-per-prompt '{\"image\": 0, \"video\": 0}'");
  }
  if (v.location("--limit-mm-per-prompt")) read_mm_limits(v, f, diags);
  f.dtype = v.string("--dtype").value_or("auto");
  f.quantization = v.string("--quantization");
  f.enable_expert_parallel = v.boolean("--enable-expert-parallel");
  return f;
}

}  // namespace gpumem::vllm
