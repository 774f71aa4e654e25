#include "sweep/point_result.h"

#include "runtime/key_figures.h"

namespace gpumem::sweep {

PointResult summarize(const Ledger& ledger, Bytes min_headroom) {
  const KeyFigures k = key_figures(ledger);
  PointResult r;
  if (!k.fits) {
    r.status = PointStatus::kFails;
  } else if (k.min_headroom && *k.min_headroom < min_headroom) {
    r.status = PointStatus::kTight;
  } else {
    r.status = PointStatus::kFits;
  }
  if (k.failure) {
    r.failed_step = k.failure->step;
    r.failed_gpu = k.failure->gpu;
    r.failed_outcome = k.failure->outcome;
    r.reason = k.failure->message;
  }
  r.kv_tokens = k.kv_tokens;
  r.kv_tokens_total = k.kv_tokens_total;
  r.max_running_requests = k.max_running_requests;
  r.replicas = k.replicas;
  r.min_headroom = k.min_headroom;
  r.calibration = ledger.calibration;
  r.calibrated = ledger.calibrated;
  return r;
}

PointResult invalid_point(std::string reason) {
  PointResult r;
  r.status = PointStatus::kInvalid;
  r.reason = std::move(reason);
  return r;
}

}  // namespace gpumem::sweep
