// What one sweep point came to: the handful of numbers a what-if question compares — the
// ledger's key figures (runtime/key_figures.h), exactly as `gpumem simulate` reports them:
// fits; the first failure (step, global GPU index, outcome, message); KV tokens and max
// running requests (MIN over GPUs), KV tokens over the data-parallel replicas; the minimum
// headroom over every GPU and step; the calibration the prediction stands on.
// A point whose scenario an engine model rejects is invalid and carries the errors instead.
#ifndef GPUMEM_SWEEP_POINT_RESULT_H_
#define GPUMEM_SWEEP_POINT_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/units.h"
#include "runtime/ledger.h"

namespace gpumem::sweep {

// kTight: every GPU completes the start-up, but one keeps less free than the sweep's
// --min-headroom asked for at some step.
enum class PointStatus { kFits, kTight, kFails, kInvalid };

struct PointResult {
  PointStatus status = PointStatus::kInvalid;
  std::string failed_step;  // kFails: the first failure's step
  int failed_gpu = -1;      // kFails: its global GPU index
  StepOutcome failed_outcome = StepOutcome::kOk;
  // kFails: the failed step's message; kInvalid: the scenario's errors, "; "-separated.
  std::string reason;
  std::optional<std::int64_t> kv_tokens;  // per data-parallel replica
  std::optional<std::int64_t> kv_tokens_total;
  std::optional<std::int64_t> max_running_requests;
  int replicas = 1;
  std::optional<Bytes> min_headroom;  // absent for invalid points
  std::string calibration;            // the constants' name (SimulationConstants::name)
  bool calibrated = false;            // the constants are fitted to this GPU's probe traces

  friend bool operator==(const PointResult&, const PointResult&) = default;
};

// The result of a simulated point; `min_headroom` is what starting asks for.
PointResult summarize(const Ledger& ledger, Bytes min_headroom);

// The result of a point whose scenario has errors; `reason` lists their messages.
PointResult invalid_point(std::string reason);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_POINT_RESULT_H_
