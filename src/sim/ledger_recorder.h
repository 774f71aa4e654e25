// The simulator's StepObserver: reads the simulated device and the allocator before and
// after each step and writes a GpuLedger.
#ifndef GPUMEM_SIM_LEDGER_RECORDER_H_
#define GPUMEM_SIM_LEDGER_RECORDER_H_

#include <array>

#include "alloc/caching_allocator.h"
#include "device/step_observer.h"
#include "runtime/ledger.h"
#include "sim/sim_device.h"

namespace gpumem {

class LedgerRecorder final : public StepObserver {
 public:
  LedgerRecorder(SimDevice& device, const CachingAllocator& allocator, GpuLedger& out);

  void begin_step(std::string_view name) override;
  void end_step(const Status& outcome) override;
  void log_line(std::string_view line) override;

 private:
  SimDevice& device_;
  const CachingAllocator& allocator_;
  GpuLedger& out_;
  LedgerStep current_;
  std::array<Bytes, kCategoryCount> by_category_before_{};
  Bytes allocated_before_;
  Bytes reserved_before_;
  bool in_step_ = false;
  std::vector<std::string> pending_lines_;  // logged between steps: kept for the next one
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_LEDGER_RECORDER_H_
