#include "runtime/key_figures.h"

#include <algorithm>
#include <variant>

#include "runtime/fact_ids.h"

namespace gpumem {
namespace {

// The value of fact `id` on every GPU that has it, as T (an int64 count, a double, Bytes).
template <typename T>
std::vector<T> per_gpu(const Ledger& ledger, std::string_view id) {
  std::vector<T> out;
  for (const GpuLedger& g : ledger.gpus) {
    const Fact* f = g.fact(id);
    if (f == nullptr) continue;
    if (const T* v = std::get_if<T>(&f->value)) out.push_back(*v);
  }
  return out;
}

template <typename T>
std::optional<T> min_over_gpus(const Ledger& ledger, std::string_view id) {
  const std::vector<T> v = per_gpu<T>(ledger, id);
  if (v.empty()) return std::nullopt;
  return *std::min_element(v.begin(), v.end());
}

}  // namespace

KeyFigures key_figures(const Ledger& ledger) {
  KeyFigures k;
  k.fits = ledger.fits();
  if (const GpuLedger* g = ledger.first_failure()) {
    const LedgerStep* s = g->failed_step();
    Failure f{s->name, g->rank, s->outcome, s->message, std::nullopt};
    if (s->outcome == StepOutcome::kOutOfMemory) {
      f.shortfall = s->requested - s->free_at_failure;
    } else if (const Fact* sf = g->fact(fact_id::kShortfallBytes)) {
      if (const Bytes* b = std::get_if<Bytes>(&sf->value)) f.shortfall = *b;
    }
    k.failure = std::move(f);
  }
  for (const GpuLedger& g : ledger.gpus) {
    const Fact* w = g.fact(fact_id::kWeightsBytes);
    if (w == nullptr) w = g.fact(fact_id::kWeightsLogicalBytes);
    const Bytes* b = w != nullptr ? std::get_if<Bytes>(&w->value) : nullptr;
    k.weights_bytes.push_back(b != nullptr ? *b : bytes(0));
  }
  k.kv_tokens = min_over_gpus<std::int64_t>(ledger, fact_id::kKvTokens);
  k.kv_bytes = min_over_gpus<Bytes>(ledger, fact_id::kKvBytes);
  k.max_running_requests = min_over_gpus<std::int64_t>(ledger, fact_id::kMaxRunningRequests);
  k.max_concurrency = min_over_gpus<double>(ledger, fact_id::kMaxConcurrency);
  if (const Fact* r = ledger.fact(fact_id::kDataParallelReplicas)) {
    if (const auto* n = std::get_if<std::int64_t>(&r->value)) k.replicas = static_cast<int>(*n);
  }
  if (k.kv_tokens) k.kv_tokens_total = *k.kv_tokens * k.replicas;
  if (k.max_running_requests) k.max_running_requests_total = *k.max_running_requests * k.replicas;
  k.free_before_weights = min_over_gpus<Bytes>(ledger, fact_id::kFreeBeforeWeights);
  k.free_after_weights = min_over_gpus<Bytes>(ledger, fact_id::kFreeAfterWeights);
  const std::vector<Bytes> graphs = per_gpu<Bytes>(ledger, fact_id::kCudaGraphBytes);
  if (!graphs.empty()) k.cuda_graph_bytes = *std::max_element(graphs.begin(), graphs.end());
  for (const GpuLedger& g : ledger.gpus) {
    for (const LedgerStep& s : g.steps) {
      const Bytes free_at_peak = g.total - s.peak_used;
      k.min_headroom = k.min_headroom ? std::min(*k.min_headroom, free_at_peak) : free_at_peak;
    }
  }
  return k;
}

}  // namespace gpumem
