// The probe's StepObserver: around every step of an engine's start-up it reads the GPU
// (cudaMemGetInfo, NVML), PyTorch-allocator emulation counters and what the probe itself
// holds through cudaMalloc per category, and keeps the wall time — the measured counterpart
// of the simulator's ledger, under the same step names.
#ifndef GPUMEM_PROBE_TRACE_RECORDER_H_
#define GPUMEM_PROBE_TRACE_RECORDER_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "device/step_observer.h"
#include "probe/rank_runtime.h"
#include "probe/sample.h"

namespace gpumem::probe {

class TraceRecorder final : public StepObserver {
 public:
  TraceRecorder(RankRuntime& rt, const CachingAllocator& allocator);

  void begin_step(std::string_view name) override;
  void end_step(const Status& outcome) override;
  void log_line(std::string_view line) override;

  // The first reading, before the start-up's first step (before any CUDA call of it).
  const Sample& initial() const { return initial_; }
  // Every step so far, as the trace's "steps" array.
  const nlohmann::json& steps() const { return steps_; }
  // The step that did not end ok, if any.
  bool failed() const { return failed_; }

 private:
  RankRuntime& rt_;
  const CachingAllocator& allocator_;
  Sample initial_;
  Sample before_;
  std::string name_;
  std::vector<std::string> lines_;
  nlohmann::json steps_ = nlohmann::json::array();
  bool failed_ = false;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_TRACE_RECORDER_H_
