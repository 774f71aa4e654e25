// The ledger: per GPU, per start-up step, where memory went.
//
// One `GpuLedger` per GPU of the scenario, its steps in the engine's order. For each step:
// what the driver saw (device memory in use after the step, the change by category, the
// high-water mark inside the step), what PyTorch's allocator saw (allocated and reserved),
// and how the step ended. A step that ran out of memory records how much it asked for and
// how much was free; the GPU's later steps are absent, and other GPUs record `aborted` at
// their next synchronisation with it — as a real engine's processes stop together.
//
// Engines add named facts (F, A, cell size, token counts, batch sizes) and the log lines
// they would print, so a report holds everything a user compares with a real log. The JSON
// form (ledger_json.h, documented in reports/README.md) is what check, diff, sweep and the
// pictures read.
#ifndef GPUMEM_SIM_LEDGER_H_
#define GPUMEM_SIM_LEDGER_H_

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

// A named number or list an engine computed on a rank (F, A, T, …).
struct Fact {
  std::string key;
  std::variant<std::int64_t, double, Bytes, std::string, std::vector<std::int64_t>> value;
  friend bool operator==(const Fact&, const Fact&) = default;
};

// A rank fact named with this prefix and a step's name holds how far that step's memory may
// honestly stray from the prediction (an engine rule that magnifies a driver rounding);
// `gpumem check` adds it to the step's tolerance.
inline constexpr std::string_view kStepUncertaintyPrefix = "uncertainty of step ";

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
  const Fact* fact(std::string_view key) const;
};

struct Ledger {
  std::string scenario;
  std::string engine;       // "sglang 0.5.9"
  std::string gpu_type;     // catalog name
  std::string calibration;  // calibration entry used
  bool calibrated = false;  // false: published figures only, say so in every report
  std::vector<GpuLedger> gpus;
  std::vector<Fact> facts;  // scenario-wide (resolved flags, …)

  bool fits() const;
  // The first GPU (lowest index) whose failure was its own (out of memory or error).
  const GpuLedger* first_failure() const;
  const Fact* fact(std::string_view key) const;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_LEDGER_H_
