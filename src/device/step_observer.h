// Watches a rank's start-up step by step. The simulator's ledger and the probe's trace are
// both observers: the engine model announces each step, the observer reads its device's
// memory before and after, so both record the same steps under the same names.
#ifndef GPUMEM_DEVICE_STEP_OBSERVER_H_
#define GPUMEM_DEVICE_STEP_OBSERVER_H_

#include <string_view>

#include "core/status.h"

namespace gpumem {

class StepObserver {
 public:
  virtual ~StepObserver() = default;

  virtual void begin_step(std::string_view name) = 0;
  // `outcome` is ok, kOutOfMemory (the step ran out of memory: the rank stops), kAborted (a
  // peer failed) or another error.
  virtual void end_step(const Status& outcome) = 0;
  // A line the engine itself would log at this point ("KV Cache is allocated. …").
  virtual void log_line(std::string_view line) = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_DEVICE_STEP_OBSERVER_H_
