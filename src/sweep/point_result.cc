#include "sweep/point_result.h"

#include <algorithm>
#include <variant>

namespace gpumem::sweep {
namespace {

// The smallest value over GPUs of an integer rank fact, if any GPU has it.
std::optional<std::int64_t> min_rank_fact(const Ledger& ledger, std::string_view key) {
  std::optional<std::int64_t> out;
  for (const GpuLedger& g : ledger.gpus) {
    const Fact* f = g.fact(key);
    if (f == nullptr) continue;
    const std::int64_t v = std::get<std::int64_t>(f->value);
    out = out ? std::min(*out, v) : v;
  }
  return out;
}

}  // namespace

PointResult summarize(const Ledger& ledger) {
  PointResult r;
  r.status = ledger.fits() ? PointStatus::kFits : PointStatus::kFails;
  if (const GpuLedger* g = ledger.first_failure()) {
    const LedgerStep* s = g->failed_step();
    r.failed_step = s->name;
    r.failed_gpu = g->rank;
    r.failed_outcome = s->outcome;
    r.reason = s->message;
  }
  const bool vllm = ledger.engine.starts_with("vllm");
  r.kv_tokens = min_rank_fact(ledger, vllm ? "GPU KV cache size (tokens)" : "max_total_num_tokens");
  if (vllm) {
    if (const Fact* f = ledger.fact("max_num_seqs")) {
      r.max_running_requests = std::get<std::int64_t>(f->value);
    }
  } else {
    r.max_running_requests = min_rank_fact(ledger, "max_running_requests");
  }
  for (const GpuLedger& g : ledger.gpus) {
    for (const LedgerStep& s : g.steps) {
      const Bytes free_at_peak = g.total - s.peak_used;
      r.min_headroom = r.min_headroom ? std::min(*r.min_headroom, free_at_peak) : free_at_peak;
    }
  }
  return r;
}

PointResult invalid_point(std::string reason) {
  PointResult r;
  r.status = PointStatus::kInvalid;
  r.reason = std::move(reason);
  return r;
}

}  // namespace gpumem::sweep
