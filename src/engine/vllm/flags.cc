#include "engine/vllm/flags.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>

#include "core/python_format.h"
#include "core/spelling.h"

namespace gpumem::vllm {
namespace {

// vllm v0.21 engine/arg_utils.py EngineArgs.add_cli_args: names, aliases and choices.
const std::vector<FlagSpec>& table() {
  static const std::vector<FlagSpec> kTable = {
      {"--tensor-parallel-size", {"-tp"}, FlagType::kInt, true, {}},
      {"--pipeline-parallel-size", {"-pp"}, FlagType::kInt, true, {}},
      {"--data-parallel-size", {"-dp"}, FlagType::kInt, true, {}},
      {"--gpu-memory-utilization", {}, FlagType::kFloat, true, {}},
      // vllm engine/arg_utils.py: type=human_readable_int ("32k", "128K").
      {"--max-model-len", {}, FlagType::kInt, true, {}, true},
      {"--max-num-seqs", {}, FlagType::kInt, true, {}},
      {"--max-num-batched-tokens", {}, FlagType::kInt, true, {}, true},
      {"--kv-cache-dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"}},
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
      {"--speculative-config", {}, FlagType::kString, true, {}},
      {"--dtype",
       {},
       FlagType::kString,
       true,
       {"auto", "half", "float16", "bfloat16", "float", "float32"}},
      {"--quantization", {"-q"}, FlagType::kString, true, {}},
      {"--enable-expert-parallel", {}, FlagType::kBool, true, {}},
      // The model reference when the scenario has no `model:` (engine/model_resolution.h);
      // not a memory knob a sweep varies or explain carries over from a log.
      {"--model", {}, FlagType::kString, false, {}},
      // vllm utils FlexibleArgumentParser: a YAML file of flags, read by the launch-command
      // reader (launch/launch_command.h); in a scenario's args it names nothing gpumem reads.
      {"--config", {}, FlagType::kString, false, {}},
      {"--served-model-name", {}, FlagType::kString, false, {}},
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
      {"--disable-log-requests", {}, FlagType::kBool, false, {}},
      {"--disable-log-stats", {}, FlagType::kBool, false, {}},
      {"--enable-auto-tool-choice", {}, FlagType::kBool, false, {}},
      {"--tool-call-parser", {}, FlagType::kString, false, {}},
      {"--reasoning-parser", {}, FlagType::kString, false, {}},
      {"--generation-config", {}, FlagType::kString, false, {}},
      {"--max-logprobs", {}, FlagType::kInt, false, {}},
      {"--swap-space", {}, FlagType::kFloat, false, {}},
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
      {"--max-num-partial-prefills", {}, FlagType::kInt, false, {}},
      {"--max-long-partial-prefills", {}, FlagType::kInt, false, {}},
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
      // vllm v0.21 config/attention.py AttentionConfig.backend.
      {"--attention-backend",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "gpumem models the attention backend vLLM chooses itself; another one has its own "
       "workspaces and KV-cache block constraints"},
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
      // vllm v0.21 config/model.py ModelConfig.hf_overrides, config/lora.py LoRAConfig,
      // config/cache.py CacheConfig.cpu_offload_gb, config/parallel.py enable_eplb,
      // config/kv_transfer.py KVTransferConfig.
      {"--hf-overrides",
       {},
       FlagType::kString,
       true,
       {},
       false,
       "it overrides config.json values that size the weights and the KV cache; write the "
       "changed config.json and name it as the model"},
      {"--enable-lora",
       {},
       FlagType::kBool,
       true,
       {},
       false,
       "LoRA adapter slots and the punica kernels' buffers are not modelled"},
      {"--cpu-offload-gb",
       {},
       FlagType::kFloat,
       true,
       {},
       false,
       "that many GiB of weights stay in CPU memory (read over UVA), so fewer weights are on "
       "the GPU"},
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
  return kTable;
}

// vllm config/cache.py BlockSize: the block sizes the CLI accepts.
constexpr std::array<std::int64_t, 7> kBlockSizes = {1, 8, 16, 32, 64, 128, 256};

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

// A JSON object given as a flag's value, parsed; errors are reported at the value.
std::optional<YAML::Node> json_object(const FlagValues& v, std::string_view flag,
                                      Diagnostics& diags) {
  std::optional<std::string> text = v.string(flag);
  if (!text) return std::nullopt;
  YAML::Node node;
  try {
    node = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    diags.error(*v.location(flag), std::string(flag) + " is not valid JSON: " + e.msg);
    return std::nullopt;
  }
  if (!node.IsMap()) {
    diags.error(*v.location(flag), std::string(flag) + " must be a JSON object");
    return std::nullopt;
  }
  return node;
}

// Reports a JSON key vLLM's config class does not have.
void unknown_key(const FlagValues& v, std::string_view flag, const std::string& key,
                 const std::vector<std::string>& known, Diagnostics& diags) {
  diags.error(*v.location(flag),
              "unknown key '" + key + "' in " + std::string(flag) + did_you_mean(key, known));
}

std::optional<std::int64_t> json_int(const YAML::Node& n) {
  try {
    return n.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

// vllm config/compilation.py CompilationConfig: the fields that change memory, then the
// others a user may set (accepted and ignored).
void read_compilation_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  constexpr std::string_view kFlag = "--compilation-config";
  // A bare number ("-O3") is a level: vllm config/compilation.py CompilationConfig.from_cli
  // before v0.12.0, the optimization level after (engine/arg_utils.py, PR #26847).
  const std::string text = v.string(kFlag).value_or("");
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    if (text.size() > 1 || text[0] > '3') {
      diags.error(*v.location(kFlag), "-O " + text + ": the level must be 0, 1, 2 or 3");
    } else {
      f.optimization_level = text[0] - '0';
    }
    return;
  }
  std::optional<YAML::Node> config = json_object(v, kFlag, diags);
  if (!config) return;
  static const std::vector<std::string> kIgnored = {"backend",
                                                    "splitting_ops",
                                                    "use_inductor",
                                                    "compile_sizes",
                                                    "inductor_compile_config",
                                                    "inductor_passes",
                                                    "pass_config",
                                                    "cudagraph_num_of_warmups",
                                                    "cudagraph_copy_inputs",
                                                    "use_cudagraph",
                                                    "debug_dump_path",
                                                    "cache_dir",
                                                    "compile_mm_encoder",
                                                    "use_inductor_graph_partition",
                                                    "cudagraph_specialize_lora",
                                                    "compile_ranges_split_points",
                                                    "dynamic_shapes_config"};
  std::vector<std::string> known = {"cudagraph_capture_sizes",
                                    "max_cudagraph_capture_size",
                                    "cudagraph_mode",
                                    "mode",
                                    "level",
                                    "custom_ops"};
  known.insert(known.end(), kIgnored.begin(), kIgnored.end());
  const SourceLoc where = *v.location(kFlag);
  for (auto it = config->begin(); it != config->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node value = it->second;
    if (key == "cudagraph_capture_sizes") {
      std::vector<std::int64_t> sizes;
      bool ok = value.IsSequence();
      for (size_t i = 0; ok && i < value.size(); ++i) {
        std::optional<std::int64_t> s = json_int(value[i]);
        ok = s && *s >= 1;
        if (ok) sizes.push_back(*s);
      }
      if (!ok) {
        diags.error(where,
                    "cudagraph_capture_sizes in --compilation-config must be a list of "
                    "positive integers");
      } else {
        f.cudagraph_capture_sizes = sizes;
      }
    } else if (key == "max_cudagraph_capture_size") {
      std::optional<std::int64_t> s = json_int(value);
      if (!s || *s < 1) {
        diags.error(where,
                    "max_cudagraph_capture_size in --compilation-config must be a positive "
                    "integer");
      } else {
        f.max_cudagraph_capture_size = s;
      }
    } else if (key == "cudagraph_mode") {
      static const std::vector<std::string> kModes = {"NONE", "PIECEWISE", "FULL",
                                                      "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"};
      const std::string mode = value.IsScalar() ? value.Scalar() : "";
      const auto m = std::find(kModes.begin(), kModes.end(), mode);
      if (m == kModes.end()) {
        diags.error(where,
                    "cudagraph_mode in --compilation-config must be one of NONE, "
                    "PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE; got '" +
                        mode + "'" + did_you_mean(mode, kModes));
      } else {
        f.cudagraph_mode = static_cast<CudagraphMode>(m - kModes.begin());
      }
    } else if (key == "mode" || key == "level") {
      // config/compilation.py CompilationMode: NONE 0, STOCK_TORCH_COMPILE 1,
      // DYNAMO_TRACE_ONCE 2, VLLM_COMPILE 3 (the same numbers as the older levels).
      const std::optional<std::int64_t> mode = json_int(value);
      if (!mode || *mode < 0 || *mode > 3) {
        diags.error(where, key + " in --compilation-config must be 0, 1, 2 or 3");
      } else {
        f.compilation_mode = static_cast<int>(*mode);
      }
    } else if (key == "custom_ops") {
      bool ok = value.IsSequence();
      for (size_t i = 0; ok && i < value.size(); ++i) {
        ok = value[i].IsScalar();
        if (ok) f.custom_ops.push_back(value[i].Scalar());
      }
      if (!ok) diags.error(where, "custom_ops in --compilation-config must be a list of names");
    } else if (std::find(kIgnored.begin(), kIgnored.end(), key) == kIgnored.end()) {
      unknown_key(v, kFlag, key, known, diags);
    }
  }
}

// vllm config/speculative.py SpeculativeConfig: the fields that change memory.
// --limit-mm-per-prompt '{"image": 0, "video": 0}': whether every modality a Qwen-VL tower
// serves is limited to 0 (a modality not named keeps vLLM's default limit).
void read_mm_limits(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  // The older form "image=1,video=0" (vllm engine/arg_utils.py nullable_kvs) reads as the
  // mapping {image: 1, video: 0}.
  std::optional<YAML::Node> limits;
  const std::string text = v.string("--limit-mm-per-prompt").value_or("");
  if (!text.empty() && text.front() != '{') {
    YAML::Node map(YAML::NodeType::Map);
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find(',', start), text.size());
      const std::string pair = text.substr(start, end - start);
      const size_t eq = pair.find('=');
      if (eq == std::string::npos) {
        diags.error(*v.location("--limit-mm-per-prompt"),
                    "--limit-mm-per-prompt: '" + pair + "' is not modality=count");
        return;
      }
      map[pair.substr(0, eq)] = pair.substr(eq + 1);
      start = end + 1;
    }
    limits = map;
  } else {
    limits = json_object(v, "--limit-mm-per-prompt", diags);
  }
  if (!limits) return;
  for (auto it = limits->begin(); it != limits->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    // A value may be a count or, from later releases, a mapping with a "count".
    const YAML::Node value = it->second.IsMap() ? it->second["count"] : it->second;
    const std::optional<std::int64_t> n = json_int(value);
    if (!n || *n < 0) {
      diags.error(
          *v.location("--limit-mm-per-prompt"),
          "--limit-mm-per-prompt: the limit of '" + key + "' must be a non-negative integer");
      return;
    }
    if (key == "image") f.image_limit = *n;
    if (key == "video") f.video_limit = *n;
  }
  f.images_off = f.image_limit == 0;
  f.multimodal_off = f.multimodal_off || (f.images_off && f.video_limit == 0);
}

void read_speculative_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  constexpr std::string_view kFlag = "--speculative-config";
  std::optional<YAML::Node> config = json_object(v, kFlag, diags);
  if (!config) return;
  static const std::vector<std::string> kIgnored = {
      "draft_tensor_parallel_size",   "prompt_lookup_max", "prompt_lookup_min", "max_model_len",
      "disable_padded_drafter_batch", "quantization",      "revision",          "code_revision",
      "disable_by_batch_size",        "acceptance_method"};
  std::vector<std::string> known = {"method", "model", "num_speculative_tokens"};
  known.insert(known.end(), kIgnored.begin(), kIgnored.end());
  const SourceLoc where = *v.location(kFlag);
  SpeculativeFlags s;
  bool has_tokens = false;
  for (auto it = config->begin(); it != config->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node value = it->second;
    if (key == "method") {
      s.method = value.IsScalar() ? value.Scalar() : "";
    } else if (key == "model") {
      if (value.IsScalar()) s.model = value.Scalar();
    } else if (key == "num_speculative_tokens") {
      std::optional<std::int64_t> n = json_int(value);
      if (!n || *n < 1) {
        diags.error(where,
                    "num_speculative_tokens in --speculative-config must be a positive "
                    "integer");
        return;
      }
      s.num_speculative_tokens = *n;
      has_tokens = true;
    } else if (std::find(kIgnored.begin(), kIgnored.end(), key) == kIgnored.end()) {
      unknown_key(v, kFlag, key, known, diags);
    }
  }
  // vllm config/speculative.py SpeculativeConfig.__post_init__: the per-model MTP names are
  // the one "mtp" method (PR #25232); qwen3_next_mtp came with Qwen3-Next (v0.10.2).
  static const std::vector<std::string> kMtpNames = {"deepseek_mtp", "glm4_moe_mtp",
                                                     "qwen3_next_mtp"};
  s.method_as_written = s.method;
  if (std::find(kMtpNames.begin(), kMtpNames.end(), s.method) != kMtpNames.end()) s.method = "mtp";
  static const std::vector<std::string> kMethods = {"ngram", "eagle3", "mtp"};
  if (std::find(kMethods.begin(), kMethods.end(), s.method) == kMethods.end()) {
    std::vector<std::string> names = kMethods;
    names.insert(names.end(), kMtpNames.begin(), kMtpNames.end());
    diags.error(where, "--speculative-config method '" + s.method +
                           "' is not modelled; gpumem models ngram, eagle3 and mtp (deepseek_mtp, "
                           "glm4_moe_mtp, qwen3_next_mtp)" +
                           did_you_mean(s.method, names));
    return;
  }
  if (!has_tokens) {
    diags.error(where, "--speculative-config needs num_speculative_tokens");
    return;
  }
  if (s.method == "eagle3" && !s.model) {
    diags.error(where, "--speculative-config method " + s.method + " needs a draft 'model'");
    return;
  }
  if (s.method == "mtp" && s.model) {
    // The draft is the target checkpoint's own MTP layers; a separate MTP checkpoint is not
    // modelled.
    diags.error(where, "--speculative-config method " + s.method_as_written +
                           " drafts with the target's own MTP layers; a draft 'model' is not "
                           "modelled");
    return;
  }
  f.speculative = s;
}

std::vector<EngineArg> with_dashes(std::span<const EngineArg> args) {
  std::vector<EngineArg> out(args.begin(), args.end());
  for (EngineArg& a : out) a.flag = dashed_flag(a.flag);
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
  f.raw = read_flags(with_dashes(engine.args), table(), "vLLM", diags);
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
  f.max_model_len = positive_flag_opt(v, "--max-model-len", diags);
  f.max_num_seqs = positive_flag_opt(v, "--max-num-seqs", diags);
  f.max_num_batched_tokens = positive_flag_opt(v, "--max-num-batched-tokens", diags);
  f.kv_cache_dtype = v.string("--kv-cache-dtype").value_or("auto");
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
  f.num_gpu_blocks_override = positive_flag_opt(v, "--num-gpu-blocks-override", diags);
  // PR #26016 (v0.11.1) added the two compilation-config flags and kept --cuda-graph-sizes
  // as a deprecated spelling of --cudagraph-capture-sizes.
  f.cuda_graph_sizes = positive_list(v, "--cuda-graph-sizes", diags);
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
  f.multimodal_off = v.boolean("--language-model-only");
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
