// What one sweep point came to: the handful of numbers a what-if question compares, read
// from the point's ledger exactly as `gpumem simulate` reports them.
//
//  * fits: every GPU completed its start-up;
//  * the first failure: the step and GPU (global index) of the lowest GPU whose failure was
//    its own (Ledger::first_failure), its outcome, and the step's message;
//  * KV tokens: the smallest over GPUs of SGLang's max_total_num_tokens / vLLM's "GPU KV
//    cache size (tokens)", when the KV cache was sized;
//  * max running requests: the smallest over GPUs of SGLang's max_running_requests; vLLM's
//    max_num_seqs (the scheduler's limit, a scenario-wide fact);
//  * minimum headroom: the free memory at the tightest point over every GPU and step,
//    min(total - peak used in the step).
// A point whose scenario an engine model rejects is invalid and carries the errors instead.
#ifndef GPUMEM_SWEEP_POINT_RESULT_H_
#define GPUMEM_SWEEP_POINT_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/units.h"
#include "sim/ledger.h"

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
