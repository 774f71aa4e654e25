#include "sweep/point_result.h"

#include "runtime/key_figures.h"

namespace gpumem::sweep {

PointResult summarize(const Ledger& ledger) {
  const KeyFigures k = key_figures(ledger);
  PointResult r;
  r.status = k.fits ? PointStatus::kFits : PointStatus::kFails;
  if (k.failure) {
    r.failed_step = k.failure->step;
    r.failed_gpu = k.failure->gpu;
    r.failed_outcome = k.failure->outcome;
    r.reason = k.failure->message;
  }
  r.kv_tokens = k.kv_tokens;
  r.max_running_requests = k.max_running_requests;
  r.min_headroom = k.min_headroom;
  return r;
}

PointResult invalid_point(std::string reason) {
  PointResult r;
  r.status = PointStatus::kInvalid;
  r.reason = std::move(reason);
  return r;
}

}  // namespace gpumem::sweep
