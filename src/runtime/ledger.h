// The ledger: per GPU, per start-up step, where memory went.
//
// One `GpuLedger` per GPU of the scenario, its steps in the engine's order. For each step:
// what the driver saw (device memory in use after the step, the change by category, the
// high-water mark inside the step), what PyTorch's allocator saw (allocated and reserved),
// and how the step ended. A step that ran out of memory records how much it asked for and
// how much was free; the GPU's later steps are absent, and other GPUs record `aborted` at
// their next synchronisation with it — as a real engine's processes stop together.
//
// Engines add facts (F, A, cell size, token counts, batch sizes) and the log lines they would
// print, so a report holds everything a user compares with a real log. A fact has a stable
// snake_case id that code and files key on (runtime/fact_ids.h) and the engine's own wording
// as its label, for display only. The JSON form (ledger_json.h, schema gpumem.ledger/2) is
// what check, diff, sweep and the pictures read.
#ifndef GPUMEM_RUNTIME_LEDGER_H_
#define GPUMEM_RUNTIME_LEDGER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/units.h"
#include "device/category.h"

namespace gpumem {

enum class StepOutcome { kOk, kOutOfMemory, kAborted, kError };

std::string_view outcome_name(StepOutcome o);

struct LedgerStep {
  std::string name;
  StepOutcome outcome = StepOutcome::kOk;
  std::string message;  // why it did not end ok

  // Driver view (cudaMemGetInfo), this process plus others on the GPU.
  Bytes used_after;
  Bytes free_after;
  Bytes peak_used;  // highest device use while the step ran
  std::array<Bytes, kCategoryCount> delta_by_category{};

  // PyTorch caching-allocator view.
  Bytes allocated_after;
  Bytes reserved_after;
  Bytes allocated_delta;
  Bytes reserved_delta;

  // When outcome is kOutOfMemory: the allocation that did not fit.
  Bytes requested;
  Bytes free_at_failure;

  std::vector<std::string> log_lines;

  Bytes delta() const;  // sum of delta_by_category
};

using FactValue = std::variant<std::int64_t, double, Bytes, std::string, std::vector<std::int64_t>>;

// A number or list an engine computed (F, A, T, …): `id` is what code and files key on
// ("kv_tokens"), `label` the engine's wording ("max_total_num_tokens"), for display only.
struct Fact {
  std::string id;
  std::string label;
  FactValue value;
  friend bool operator==(const Fact&, const Fact&) = default;
};

struct GpuLedger {
  int gpu = 0;  // index on its node
  int node = 0;
  int rank = 0;       // global rank
  Bytes total;        // CUDA's total for this GPU
  Bytes used_before;  // by other processes before the engine started
  std::vector<LedgerStep> steps;
  std::vector<Fact> facts;

  bool completed() const;
  const LedgerStep* failed_step() const;  // the step that did not end ok, if any
  const Fact* fact(std::string_view id) const;
  // A fact's value as a number (bytes, a count or a ratio); nullopt for a missing fact, a
  // string or a list.
  std::optional<double> fact_number(std::string_view id) const;
};

// One alternative the fit advice simulated for a start-up that does not fit: the flag and
// the value that would make it start, instead of the value the scenario had.
struct FitOption {
  std::string flag;
  std::string value;
  std::string instead_of;
  friend bool operator==(const FitOption&, const FitOption&) = default;
};

struct FitAdviceRecord {
  std::vector<FitOption> options;
  std::vector<std::string> none_found;  // flags no value of which makes it start
  Bytes min_headroom = bytes(0);        // what "starts" asked for (--min-headroom)
  friend bool operator==(const FitAdviceRecord&, const FitAdviceRecord&) = default;
};

struct Ledger {
  std::string scenario;
  std::string engine;       // "sglang 0.5.9"
  std::string gpu_type;     // catalog name
  std::string calibration;  // calibration entry used
  bool calibrated = false;  // false: published figures only, say so in every report
  std::vector<GpuLedger> gpus;
  std::vector<Fact> facts;  // scenario-wide (resolved flags, …)
  // Set when the fit advice ran (a start-up that does not fit); written with the ledger.
  std::optional<FitAdviceRecord> fit_advice;

  bool fits() const;
  // The first GPU (lowest index) whose failure was its own (out of memory or error).
  const GpuLedger* first_failure() const;
  const Fact* fact(std::string_view id) const;
};

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_LEDGER_H_
