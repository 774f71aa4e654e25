#include "engine/vllm/newest_flags.h"

namespace gpumem::vllm {

// Each group names the config class in arg_utils.py (or the frontend's cli_args.py) it comes from.
const std::vector<FlagSpec>& host_side_flags() {
  static const std::vector<FlagSpec> kFlags = {
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, ModelConfig (model_kwargs =
      // get_kwargs(ModelConfig))
      {"--allowed-media-domains", {}, FlagType::kList, false, {}},
      {"--allow-deprecated-quantization", {}, FlagType::kBool, false, {}},
      {"--logprobs-mode", {}, FlagType::kString, false, {}},
      {"--hf-token", {}, FlagType::kString, false, {}},
      {"--enable-nccl-comm-suspend", {}, FlagType::kBool, false, {}},
      {"--io-processor-plugin", {}, FlagType::kString, false, {}},
      {"--renderer-num-workers", {}, FlagType::kInt, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, LoadConfig
      {"--safetensors-prefetch-num-threads", {}, FlagType::kInt, false, {}},
      {"--safetensors-prefetch-block-size", {}, FlagType::kInt, false, {}},
      {"--use-tqdm-on-load", {}, FlagType::kBool, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, MambaConfig
      {"--mamba-ssu-algorithm", {}, FlagType::kString, false, {}},
      {"--enable-mamba-cache-stochastic-rounding", {}, FlagType::kBool, false, {}},
      {"--mamba-cache-philox-rounds", {}, FlagType::kInt, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, StructuredOutputsConfig
      {"--reasoning-parser-plugin", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, ParallelConfig (plus explicit
      // add_argument calls for -dp* / --device-ids)
      {"--master-addr", {}, FlagType::kString, false, {}},
      {"--master-port", {}, FlagType::kInt, false, {}},
      {"--nnodes", {"-n"}, FlagType::kInt, false, {}},
      {"--node-rank", {"-r"}, FlagType::kInt, false, {}},
      {"--distributed-timeout-seconds", {}, FlagType::kInt, false, {}},
      {"--cpu-distributed-timeout-seconds", {}, FlagType::kInt, false, {}},
      {"--numa-bind", {}, FlagType::kBool, false, {}},
      {"--numa-bind-nodes", {}, FlagType::kIntList, false, {}},
      {"--numa-bind-cpus", {}, FlagType::kList, false, {}},
      {"--device-ids", {}, FlagType::kList, false, {}},
      {"--dcp-kv-cache-interleave-size", {}, FlagType::kInt, false, {}},
      {"--cp-kv-cache-interleave-size", {}, FlagType::kInt, false, {}},
      {"--data-parallel-rank", {"-dpn"}, FlagType::kInt, false, {}},
      {"--data-parallel-backend", {"-dpb"}, FlagType::kString, false, {}},
      {"--data-parallel-hybrid-lb", {"-dph"}, FlagType::kBool, false, {}},
      {"--data-parallel-external-lb", {"-dpe"}, FlagType::kBool, false, {}},
      {"--data-parallel-multi-port-external-lb", {"-dpm"}, FlagType::kBool, false, {}},
      {"--enable-ep-weight-filter", {}, FlagType::kBool, false, {}},
      {"--dbo-decode-token-threshold", {}, FlagType::kInt, false, {}},
      {"--dbo-prefill-token-threshold", {}, FlagType::kInt, false, {}},
      {"--disable-nccl-for-dp-synchronization", {}, FlagType::kBool, false, {}},
      {"--expert-placement-strategy", {}, FlagType::kString, false, {}},
      {"--ray-workers-use-nsight", {}, FlagType::kBool, false, {}},
      {"--enable-fault-tolerance", {}, FlagType::kBool, false, {}},
      {"--fault-tolerance-config", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, CacheConfig
      {"--prefix-caching-hash-algo", {}, FlagType::kString, false, {}},
      {"--prefix-match-unit", {}, FlagType::kInt, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, MultiModalConfig (plus explicit
      // --mm-processor-device)
      {"--mm-processor-cache-type", {}, FlagType::kString, false, {}},
      {"--mm-hasher-algorithm", {}, FlagType::kString, false, {}},
      {"--mm-shm-cache-max-object-size-mb", {}, FlagType::kInt, false, {}},
      {"--mm-encoder-fp8-scale-path", {}, FlagType::kString, false, {}},
      {"--mm-encoder-fp8-scale-save-path", {}, FlagType::kString, false, {}},
      {"--mm-encoder-fp8-scale-save-margin", {}, FlagType::kFloat, false, {}},
      {"--interleave-mm-strings", {}, FlagType::kBool, false, {}},
      {"--video-pruning-method", {}, FlagType::kString, false, {}},
      {"--mm-tensor-ipc", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, LoRAConfig
      {"--max-cpu-loras", {}, FlagType::kInt, false, {}},
      {"--default-mm-loras", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, ObservabilityConfig
      {"--per-request-spec-decode-metrics", {}, FlagType::kString, false, {}},
      {"--kv-cache-metrics", {}, FlagType::kBool, false, {}},
      {"--kv-cache-metrics-sample", {}, FlagType::kFloat, false, {}},
      {"--cudagraph-metrics", {}, FlagType::kBool, false, {}},
      {"--enable-layerwise-nvtx-tracing", {}, FlagType::kBool, false, {}},
      {"--enable-mfu-metrics", {}, FlagType::kBool, false, {}},
      {"--enable-logging-iteration-details", {}, FlagType::kBool, false, {}},
      {"--jit-monitor-mode", {}, FlagType::kString, false, {}},
      {"--jit-monitor-verbose", {}, FlagType::kBool, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, SchedulerConfig
      {"--max-num-queued-reqs", {}, FlagType::kInt, false, {}},
      {"--max-num-queued-tokens", {}, FlagType::kInt, false, {}},
      {"--disable-chunked-mm-input", {}, FlagType::kBool, false, {}},
      {"--scheduler-reserve-full-isl", {}, FlagType::kBool, false, {}},
      {"--watermark", {}, FlagType::kFloat, false, {}},
      {"--prefill-schedule-interval", {}, FlagType::kInt, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, VllmConfig / SpeculativeConfig
      // shorthands
      {"--reasoning-config", {}, FlagType::kString, false, {}},
      {"--profiler-config", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, EngineArgs: explicit arguments outside
      // the config groups
      {"--aggregate-engine-logging", {}, FlagType::kBool, false, {}},
      {"--fail-on-environ-validation", {}, FlagType::kBool, false, {}},
      {"--shutdown-timeout", {}, FlagType::kInt, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, entrypoints/launchers/cli_args.py
      // make_arg_parser
      {"--grpc", {}, FlagType::kBool, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, BaseFrontendArgs (cli_args.py)
      {"--chat-template-content-format", {}, FlagType::kString, false, {}},
      {"--trust-request-chat-template", {}, FlagType::kBool, false, {}},
      {"--exclude-tools-when-tool-choice-none", {}, FlagType::kBool, false, {}},
      {"--tool-parser-plugin", {}, FlagType::kString, false, {}},
      {"--tool-server", {}, FlagType::kString, false, {}},
      {"--enable-per-request-metrics", {}, FlagType::kBool, false, {}},
      {"--sse-keep-alive-interval", {}, FlagType::kInt, false, {}},
      {"--enable-tokenizer-info-endpoint", {}, FlagType::kBool, false, {}},
      {"--enable-log-deltas", {}, FlagType::kBool, false, {}},
      {"--cohere-is-reasoning-model", {}, FlagType::kBool, false, {}},
      {"--cohere-format", {}, FlagType::kString, false, {}},
      {"--log-error-stack", {}, FlagType::kBool, false, {}},
      {"--tokens-only", {}, FlagType::kBool, false, {}},
      {"--fingerprint-mode", {}, FlagType::kString, false, {}},
      {"--fingerprint-value", {}, FlagType::kString, false, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, FrontendArgs (cli_args.py)
      {"--data-parallel-supervisor-port", {}, FlagType::kInt, false, {}},
      {"--dp-supervisor-probe-interval-s", {}, FlagType::kFloat, false, {}},
      {"--dp-supervisor-probe-timeout-s", {}, FlagType::kFloat, false, {}},
      {"--dp-supervisor-probe-failure-threshold", {}, FlagType::kInt, false, {}},
      {"--uds", {}, FlagType::kString, false, {}},
      {"--disable-access-log-for-endpoints", {}, FlagType::kString, false, {}},
      {"--allow-credentials", {}, FlagType::kBool, false, {}},
      {"--allowed-methods", {}, FlagType::kList, false, {}},
      {"--allowed-headers", {}, FlagType::kList, false, {}},
      {"--ssl-ca-certs", {}, FlagType::kString, false, {}},
      {"--enable-ssl-refresh", {}, FlagType::kBool, false, {}},
      {"--ssl-cert-reqs", {}, FlagType::kInt, false, {}},
      {"--ssl-ciphers", {}, FlagType::kString, false, {}},
      {"--h11-max-incomplete-event-size", {}, FlagType::kInt, false, {}},
      {"--h11-max-header-count", {}, FlagType::kInt, false, {}},
      {"--enable-offline-docs", {}, FlagType::kBool, false, {}},
  };
  return kFlags;
}

// Each reason says what the flag changes on the device; a value equal to the flag's default
// (the argument after the reason, where there is one) leaves the engine as gpumem models it.
const std::vector<FlagSpec>& unmodelled_flags() {
  static const std::vector<FlagSpec> kFlags = {
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, ModelConfig (model_kwargs =
      // get_kwargs(ModelConfig))
      refused_flag("--convert", FlagType::kString,
                   "embed/classify turn it into a pooling model (pooler head, no sampler; gpumem "
                   "refuses pooling runners)",
                   "auto"),
      refused_flag("--hf-config-path", FlagType::kString,
                   "another config.json sizes the weights and KV cache"),
      refused_flag("--request-static-yarn-factors", FlagType::kList,
                   "one mRoPE cos/sin cache per factor is kept on the GPU"),
      refused_flag("--quantization-config", FlagType::kString,
                   "online quantization changes weight bytes and kernels"),
      refused_flag("--enable-return-routed-experts", FlagType::kBool,
                   "a device buffer records the top-k expert ids of every token and layer"),
      refused_flag(
          "--return-sampling-mask", FlagType::kBool,
          "a per-step sampling mask is output, which may change the sampler's profiled peak"),
      refused_flag("--use-fp64-gumbel", FlagType::kBool,
                   "the sampler's noise tensor [num_reqs × vocab] doubles in bytes; could raise "
                   "the sampler's profiled peak"),
      refused_flag("--enable-trace-replay", FlagType::kBool,
                   "a per-request trace buffer is reserved"),
      refused_flag(
          "--disable-sliding-window", FlagType::kBool,
          "sliding-window layers/limits change the KV cache per request and max_model_len"),
      refused_flag("--model-class-overrides", FlagType::kString,
                   "a different model class can change weights and buffers"),
      refused_flag("--pooler-config", FlagType::kString,
                   "pooling models only (gpumem refuses those)"),
      refused_flag("--enable-cumem-allocator", FlagType::kBool,
                   "weights/KV come from CuMemAllocator instead of PyTorch's caching allocator "
                   "(same reason gpumem refuses --enable-sleep-mode)"),
      // Read once the model is known (plan_checks.h model_impl_refusal): vLLM runs some models
      // on the Transformers backend whatever it is given.
      {"--model-impl", {}, FlagType::kString, true, {"auto", "vllm", "transformers", "terratorch"}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, LoadConfig
      refused_flag("--pt-load-map-location", FlagType::kString,
                   "loading .pt straight to the GPU can add a transient copy during load", "cpu"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, MambaConfig
      refused_flag("--mamba-backend", FlagType::kString,
                   "each Mamba kernel backend keeps its own workspaces", "triton"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, ParallelConfig (plus explicit
      // add_argument calls for -dp* / --device-ids)
      refused_flag("--decode-context-parallel-size", FlagType::kInt,
                   "each rank holds 1/DCP of the tokens' KV; adds per-layer collectives", "1",
                   {"-dcp"}),
      refused_flag("--dcp-comm-backend", FlagType::kString,
                   "fi_a2a uses a FlashInfer MNNVL workspace", "ag_rs"),
      refused_flag("--dcp-q-replicate", FlagType::kBool,
                   "the (small) query projection weights are replicated per DCP rank"),
      refused_flag(
          "--prefill-context-parallel-size", FlagType::kInt,
          "more ranks per replica; MoE experts shard over TP×PCP×DP; activations split by sequence",
          "1", {"-pcp"}),
      refused_flag("--enable-batch-sharded-sampling", FlagType::kBool,
                   "each rank's logits and sampler tensors shrink to a batch slice"),
      refused_flag("--ubatch-size", FlagType::kInt,
                   "micro-batching keeps per-ubatch buffers/graphs, like --enable-dbo", "0"),
      refused_flag("--enable-elastic-ep", FlagType::kBool, "extra communicator/expert buffers"),
      refused_flag("--eplb-config", FlagType::kString,
                   "num_redundant_experts adds expert weights per rank (with --enable-eplb)"),
      refused_flag("--worker-cls", FlagType::kString, "a custom worker can allocate anything",
                   "auto"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, CacheConfig
      refused_flag(
          "--prefix-cache-retention-interval", FlagType::kInt,
          "changes how many state/window blocks stay cached at run time, not the start-up pool"),
      refused_flag("--kv-cache-dtype-skip-layers", FlagType::kList,
                   "those layers' KV pages stay 16-bit (and pages are padded to align)"),
      refused_flag("--kv-sharing-fast-prefill", FlagType::kBool,
                   "it changes the attention metadata of KV-sharing layers"),
      refused_flag("--mamba-block-size", FlagType::kInt,
                   "how many Mamba state checkpoints a request keeps with prefix caching"),
      refused_flag("--mamba-cache-mode", FlagType::kString,
                   "'all'/'align' keep extra state pages per request (gpumem models align via "
                   "prefix caching)"),
      refused_flag("--replayssm-buffer-len", FlagType::kInt, "B recent SSM inputs kept per request",
                   "16"),
      refused_flag("--use-replayssm", FlagType::kBool, "bigger Mamba state pages (replay buffer)"),
      refused_flag("--kv-offloading-size", FlagType::kFloat,
                   "turns on a KV offloading connector (pinned host buffer; GPU-side transfer "
                   "constraints), like --kv-transfer-config which gpumem refuses"),
      refused_flag("--kv-offloading-backend", FlagType::kString, "connector buffers", "native"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, OffloadConfig / UVAOffloadConfig /
      // PrefetchOffloadConfig
      refused_flag("--offload-backend", FlagType::kString, "decides which weights stay on the GPU",
                   "auto"),
      refused_flag("--cpu-offload-params", FlagType::kList,
                   "which weights leave the GPU under --cpu-offload-gb"),
      refused_flag("--offload-group-size", FlagType::kInt,
                   "those layers' weights live in host RAM; static GPU prefetch buffers"),
      refused_flag("--offload-num-in-group", FlagType::kInt, "share of weights off the GPU", "1"),
      refused_flag("--offload-prefetch-step", FlagType::kInt,
                   "prefetch buffers scale with it (docstring)", "1"),
      refused_flag("--offload-params", FlagType::kList,
                   "which weights of offloaded layers leave the GPU"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, MultiModalConfig (plus explicit
      // --mm-processor-device)
      refused_flag("--enable-mm-embeds", FlagType::kBool,
                   "the encoder may still be built and profiled; embeddings arrive at run time"),
      refused_flag("--media-io-kwargs", FlagType::kString,
                   "e.g. video num_frames sizes the dummy video of the encoder profile"),
      refused_flag("--mm-encoder-only", FlagType::kBool,
                   "no language-model weights and no KV cache"),
      refused_flag("--mm-encoder-attn-backend", FlagType::kString,
                   "encoder attention workspaces/activation peak"),
      refused_flag("--mm-encoder-attn-dtype", FlagType::kString,
                   "fp8 Q/K/V in the encoder's attention change its activation peak"),
      refused_flag("--skip-mm-profiling", FlagType::kBool,
                   "the encoder's activation/embedding-cache peak is left out of the profile, so "
                   "the KV cache gets that memory"),
      refused_flag("--video-pruning-rate", FlagType::kFloat,
                   "fewer video tokens per item (encoder cache / profile budget)"),
      refused_flag("--mm-processor-device", FlagType::kString,
                   "the API process allocates GPU tensors when it resolves to the accelerator",
                   "auto"),
      refused_flag("--mm-ipc-gpu-memory-gb", FlagType::kFloat,
                   "reduces the KV cache budget by the quota", "0"),
      refused_flag("--mm-device-do-normalize", FlagType::kBool,
                   "uint8-to-fp32 normalization runs on the GPU in the encoder path"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, LoRAConfig
      refused_flag("--max-loras", FlagType::kInt, "LoRA slot buffers scale with it", "1"),
      refused_flag("--max-lora-rank", FlagType::kInt, "LoRA A/B buffers scale with it", "16"),
      refused_flag("--lora-dtype", FlagType::kString, "bytes of the LoRA buffers", "auto"),
      refused_flag("--enable-tower-connector-lora", FlagType::kBool,
                   "buffers for encoder/connector layers"),
      refused_flag("--fully-sharded-loras", FlagType::kBool, "per-rank LoRA buffer sizes"),
      refused_flag("--lora-target-modules", FlagType::kList,
                   "only listed modules get LoRA buffers"),
      refused_flag("--specialize-active-lora", FlagType::kBool, "more CUDA graphs captured"),
      refused_flag("--enable-mixed-moe-lora-format", FlagType::kBool, "MoE LoRA buffer layout"),
      refused_flag("--enable-moe-shared-loras", FlagType::kBool,
                   "two of four MoE LoRA buffers lose the expert dimension"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, SchedulerConfig
      refused_flag("--max-num-scheduled-tokens", FlagType::kInt,
                   "buffers are still sized by max_num_batched_tokens; a lower value may lower the "
                   "profiled token count"),
      refused_flag("--scheduler-cls", FlagType::kString,
                   "a custom scheduler class can allocate anything"),
      // Modelled where it changes nothing (one kind of KV layer), refused elsewhere
      // (plan_checks.h hybrid_kv_manager_refusal).
      {"--disable-hybrid-kv-cache-manager", {}, FlagType::kBool, true, {}},
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, KernelConfig
      refused_flag("--ir-op-priority", FlagType::kList,
                   "it chooses the norm kernels' providers, which gpumem does not model"),
      refused_flag("--enable-flashinfer-autotune", FlagType::kBool,
                   "transient tuning workspaces during warmup"),
      refused_flag("--enable-bf16x3-router-gemm", FlagType::kBool,
                   "the experimental router GEMM keeps a workspace of its own"),
      refused_flag("--moe-backend", FlagType::kString,
                   "backends repack/pad expert weights differently and have own workspaces",
                   "auto"),
      refused_flag("--linear-backend", FlagType::kString,
                   "kernel choice changes weight repacking/padding (gpumem models "
                   "Marlin/Machete/Exllama choice itself)",
                   "auto"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, VllmConfig / SpeculativeConfig
      // shorthands
      refused_flag("--spec-method", FlagType::kString,
                   "a shorthand of --speculative-config, which gpumem reads: write it there"),
      refused_flag("--spec-model", FlagType::kString,
                   "a shorthand of --speculative-config, which gpumem reads: write it there"),
      refused_flag("--spec-tokens", FlagType::kInt,
                   "a shorthand of --speculative-config, which gpumem reads: write it there"),
      refused_flag("--diffusion-config", FlagType::kString,
                   "canvas_length acts like speculative tokens (lookahead/batch sizing); different "
                   "model path",
                   "", {"-dc"}),
      refused_flag("--ec-transfer-config", FlagType::kString,
                   "an EC producer allocates no KV cache; connector buffers"),
      refused_flag("--ec-manager-config", FlagType::kString, "encoder cache sizing"),
      refused_flag("--attention-config", FlagType::kString,
                   "it sets the attention backend and its options (FlashAttention version, "
                   "an FP4 indexer cache), whose workspaces and KV-cache block constraints "
                   "gpumem does not model; --attention-backend naming the backend vLLM "
                   "chooses itself is read",
                   "", {"-ac"}),
      refused_flag("--kernel-config", FlagType::kString,
                   "it chooses the MoE and linear kernels, whose weight layouts and workspaces "
                   "gpumem models only as vLLM chooses them"),
      refused_flag("--performance-mode", FlagType::kString,
                   "'throughput' doubles the default max_num_batched_tokens and max_num_seqs "
                   "(arg_utils); modes change CUDA graph sizes",
                   "balanced"),
      refused_flag("--weight-transfer-config", FlagType::kString, "transfer groups/buffers"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, EngineArgs: explicit arguments outside
      // the config groups
      refused_flag(
          "--gdn-prefill-backend", FlagType::kString,
          "chunk workspaces of the GDN prefill (profile peak on Qwen3-Next/3.5/3.6 hybrids)"),
      refused_flag("--kda-prefill-backend", FlagType::kString, "prefill workspaces on KDA models"),
      // vllm 4897bc66 (v0.29-era main) engine/arg_utils.py, FrontendArgs (cli_args.py)
      refused_flag("--enable-flash-late-interaction", FlagType::kBool,
                   "GPU use by the API server process (late-interaction pooling models only), "
                   "outside the engine's budget",
                   "true"),
  };
  return kFlags;
}

}  // namespace gpumem::vllm
