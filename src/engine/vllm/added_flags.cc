#include "engine/vllm/added_flags.h"

#include <array>

namespace gpumem::vllm {

std::span<const AddedFlag> newer_release_flags() {
  static constexpr std::array kFlags = {
      // vllm PR #41499 (opened 2026-05-02, after 0.20.0); 0.21.0's model_loader/
      // default_loader.py reads load_config.safetensors_prefetch_block_size.
      AddedFlag{"--safetensors-prefetch-num-threads", "0.21.0"},
      AddedFlag{"--safetensors-prefetch-block-size", "0.21.0"},
      // The DP supervisor of the Rust front-end, announced by v0.22.0's release notes
      // (UNCONFIRMED: the notes, not the parser, were read).
      AddedFlag{"--dp-supervisor-probe-interval-s", "0.22.0", true},
      AddedFlag{"--dp-supervisor-probe-timeout-s", "0.22.0", true},
      AddedFlag{"--dp-supervisor-probe-failure-threshold", "0.22.0", true},
      // CacheConfig.prefix_match_unit: "since 0.26" (vllm-ascend issue #15749); in the v0.28.0
      // image's parser (runpod worker-vllm PR #332).
      AddedFlag{"--prefix-match-unit", "0.26.0", true},
      // vllm PR #49686 (opened 2026-07-24; VLLM_MM_HASHER_ALGORITHM alone before) and PR #50157
      // (MambaConfig.ssu_algorithm, 2026-07-29); both in the v0.28.0 image's parser.
      AddedFlag{"--mm-hasher-algorithm", "0.27.0", true},
      AddedFlag{"--mamba-ssu-algorithm", "0.27.0", true},
      // Absent from the v0.28.0 image's parser, present in the v0.29.0 image's (runpod
      // worker-vllm parser dumps); the queue limits are vllm PR #49445.
      AddedFlag{"--max-num-queued-reqs", "0.29.0"},
      AddedFlag{"--max-num-queued-tokens", "0.29.0"},
      AddedFlag{"--per-request-spec-decode-metrics", "0.29.0"},
      AddedFlag{"--sse-keep-alive-interval", "0.29.0"},
      // ModelConfig.enable_nccl_comm_suspend (vllm PR #51485, 2026-08-08): not in the v0.29.0
      // image's parser.
      AddedFlag{"--enable-nccl-comm-suspend", "0.30.0", true},
  };
  return kFlags;
}

}  // namespace gpumem::vllm
