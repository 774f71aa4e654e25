#include "engine/vllm/older_flags.h"

#include <vector>

namespace gpumem::vllm {

std::span<const RetiredFlag> older_release_flags() {
  static const std::vector<RetiredFlag> kFlags = {
      // V0's runner and scheduler (removed with V0, PRs #22779 and #25334, #25543); the V1
      // engine gpumem models reads none of them.
      {"--max-seq-len-to-capture", {}, FlagType::kInt, "0.11.0", {}, {}},
      {"--num-scheduler-steps",
       {},
       FlagType::kInt,
       "0.10.2",
       "V0's multi-step scheduling; gpumem models the V1 engine",
       {"1"}},
      {"--multi-step-stream-outputs", {}, FlagType::kBool, "0.10.2", {}, {}},
      {"--disable-async-output-proc", {}, FlagType::kBool, "0.11.0", {}, {}},
      {"--scheduler-delay-factor", {}, FlagType::kFloat, "0.11.0", {}, {}},
      {"--preemption-mode", {}, FlagType::kString, "0.11.0", {}, {}},
      {"--num-lookahead-slots", {}, FlagType::kInt, "0.13.0", {}, {}},
      // Neuron's config, and the prompt-adapter flag kept without effect after prompt adapters went
      // (0.10.0).
      {"--override-neuron-config", {}, FlagType::kString, "0.12.0", {}, {}},
      {"--enable-prompt-adapter", {}, FlagType::kBool, "0.12.0", {}, {}},
      // LoRA's (refused by --enable-lora itself) and EPLB's (refused by --enable-eplb) options,
      // which act only with those on; config/parallel.py EPLBConfig took the EPLB ones.
      {"--enable-lora-bias", {}, FlagType::kBool, "0.12.0", {}, {}},
      {"--lora-extra-vocab-size", {}, FlagType::kInt, "0.12.0", {}, {}},
      {"--num-redundant-experts", {}, FlagType::kInt, "0.12.0", {}, {}},
      {"--eplb-window-size", {}, FlagType::kInt, "0.12.0", {}, {}},
      {"--eplb-step-interval", {}, FlagType::kInt, "0.12.0", {}, {}},
      {"--eplb-log-balancedness", {}, FlagType::kBool, "0.12.0", {}, {}},
      // PR #28006: --rope-scaling rewrote config.json's rope_scaling (context and cos/sin
      // cache, both derived from it: engine/config_overrides.h reads it), --rope-theta only
      // the base.
      {"--rope-scaling", {}, FlagType::kString, "0.12.0", {}, {}},
      {"--rope-theta", {}, FlagType::kFloat, "0.12.0", {}, {}},
      // Structured outputs (PR #29326), pooling (PR #29402) and request options: host-side.
      {"--guided-decoding-backend", {}, FlagType::kString, "0.12.0", {}, {}},
      {"--guided-decoding-disable-fallback", {}, FlagType::kBool, "0.12.0", {}, {}},
      {"--guided-decoding-disable-any-whitespace", {}, FlagType::kBool, "0.12.0", {}, {}},
      {"--guided-decoding-disable-additional-properties", {}, FlagType::kBool, "0.12.0", {}, {}},
      {"--override-pooler-config", {}, FlagType::kString, "0.12.0", {}, {}},
      {"--disable-mm-preprocessor-cache", {}, FlagType::kBool, "0.13.0", {}, {}},
      {"--logits-processor-pattern", {}, FlagType::kString, "0.17.0", {}, {}},
      {"--disable-frontend-multiprocessing", {}, FlagType::kBool, "0.19.0", {}, {}},
      // --task chose the runner as --runner and --convert do (0.13.0 rejects it): a pooling
      // task is a pooling model, which gpumem refuses.
      {"--task",
       {},
       FlagType::kString,
       "0.13.0",
       "a pooling or embedding task runs a pooling model, which gpumem does not model",
       {"auto", "generate"}},
      // Host-side flags, first rejected by the release each names: --disable-log-requests
      // (deprecated for --enable-log-requests by PR #21739; 0.18.1 and 0.19 images reject it,
      // "removed from vLLM 0.17.0": llm-d-benchmark PR #781), --swap-space (PR #36216; in
      // EngineArgs through 0.17.1, absent from 0.18.0 on: unsloth-zoo #1210 read every
      // release), and the partial-prefill limits (the v0.27.0 image's parser: runpod
      // worker-vllm PR #324).
      {"--disable-log-requests", {}, FlagType::kBool, "0.17.0", {}, {}},
      {"--swap-space", {}, FlagType::kFloat, "0.18.0", {}, {}},
      {"--max-num-partial-prefills", {}, FlagType::kInt, "0.27.0", {}, {}},
      {"--max-long-partial-prefills", {}, FlagType::kInt, "0.27.0", {}, {}},
      // Still in 0.21: --calculate-kv-scales (deprecated by PR #37201, removed by PR #49389)
      // computes an fp8 cache's scales from the first batch instead of loading them, the
      // cache's size unchanged; --override-attention-dtype is ROCm's (PR #17331, removed by
      // PR #48684). The v0.28.0 image's parser has neither (runpod worker-vllm PR #332).
      {"--calculate-kv-scales", {}, FlagType::kBool, "0.28.0", {}, {}},
      {"--override-attention-dtype", {}, FlagType::kString, "0.28.0", {}, {}},
      // The same as --mm-encoder-tp-mode data.
      {"--enable-multimodal-encoder-data-parallel",
       {},
       FlagType::kBool,
       "0.13.0",
       "the multimodal encoder's weights are replicated on every TP rank (--mm-encoder-tp-mode "
       "data), which gpumem does not model",
       {}},
  };
  return kFlags;
}

}  // namespace gpumem::vllm
