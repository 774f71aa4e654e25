// What one sweep point came to: the handful of numbers a what-if question compares — the
// ledger's key figures (runtime/key_figures.h), exactly as `gpumem simulate` reports them:
// fits; the first failure (step, global GPU index, outcome, message); KV tokens and max
// running requests (MIN over GPUs); the minimum headroom over every GPU and step.
// A point whose scenario an engine model rejects is invalid and carries the errors instead.
#ifndef GPUMEM_SWEEP_POINT_RESULT_H_
#define GPUMEM_SWEEP_POINT_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/units.h"
#include "runtime/ledger.h"

namespace gpumem::sweep {

enum class PointStatus { kFits, kFails, kInvalid };

struct PointResult {
  PointStatus status = PointStatus::kInvalid;
  std::string failed_step;  // kFails: the first failure's step
  int failed_gpu = -1;      // kFails: its global GPU index
  StepOutcome failed_outcome = StepOutcome::kOk;
  // kFails: the failed step's message; kInvalid: the scenario's errors, "; "-separated.
  std::string reason;
  std::optional<std::int64_t> kv_tokens;
  std::optional<std::int64_t> max_running_requests;
  std::optional<Bytes> min_headroom;  // absent for invalid points

  friend bool operator==(const PointResult&, const PointResult&) = default;
};

// The result of a simulated point.
PointResult summarize(const Ledger& ledger);

// The result of a point whose scenario has errors; `reason` lists their messages.
PointResult invalid_point(std::string reason);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_POINT_RESULT_H_
