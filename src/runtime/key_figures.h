// The few numbers a user reads first, the same for every engine, from a ledger's facts by
// their stable ids (runtime/fact_ids.h): whether it starts; if not, where and by how much;
// weights per GPU; the KV cache in tokens and bytes; requests and concurrency; SGLang's F
// and A where the engine has them; CUDA-graph memory; the smallest headroom. The JSON ledger
// carries them as its top-level `key_figures` object, sweeps and explain read them here.
//
// Over GPUs: a per-GPU figure is the MIN over the GPUs that have it (the engines themselves
// size the KV cache by the MIN over ranks), except CUDA-graph memory, the MAX (the GPU that
// needs most), and weights, which are listed per GPU. KV tokens and running requests are a
// replica's; the totals multiply them by the data-parallel replicas, which serve apart.
#ifndef GPUMEM_RUNTIME_KEY_FIGURES_H_
#define GPUMEM_RUNTIME_KEY_FIGURES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/units.h"
#include "runtime/ledger.h"

namespace gpumem {

struct Failure {
  std::string step;
  int gpu = 0;  // global index (rank)
  StepOutcome outcome = StepOutcome::kError;
  std::string message;
  std::optional<Bytes> shortfall;  // out of memory: what was asked minus what was free

  friend bool operator==(const Failure&, const Failure&) = default;
};

struct KeyFigures {
  bool fits = false;
  std::optional<Failure> failure;               // the first GPU that failed on its own
  std::vector<Bytes> weights_bytes;             // per GPU, in rank order (zero where not loaded)
  std::optional<std::int64_t> kv_tokens;        // per replica
  int replicas = 1;                             // data-parallel replicas, each with its own cache
  std::optional<std::int64_t> kv_tokens_total;  // kv_tokens x replicas
  std::optional<std::int64_t> max_running_requests_total;  // max_running_requests x replicas
  std::optional<Bytes> kv_bytes;
  std::optional<std::int64_t> max_running_requests;
  std::optional<double> max_concurrency;     // requests of the maximum length at once
  std::optional<Bytes> free_before_weights;  // SGLang F (world MIN)
  std::optional<Bytes> free_after_weights;   // SGLang A (world MIN)
  std::optional<Bytes> cuda_graph_bytes;
  std::optional<Bytes> min_headroom;  // min over GPUs and steps of total - peak used

  friend bool operator==(const KeyFigures&, const KeyFigures&) = default;
};

KeyFigures key_figures(const Ledger& ledger);

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_KEY_FIGURES_H_
