// A part of a step that the simulator may answer from a memo instead of replaying it
// (sim/capture_memo.h, issue 24): a body whose requests to the device and allocator are a
// pure function of a key (the engine's arguments to it), that reads no address, and that
// reports the device's free memory it reads as figures rather than text, so that a restored
// run can report them as they would have been. The probe, and a simulation without a memo,
// run the body.
#ifndef GPUMEM_RUNTIME_MEMOIZED_RUN_H_
#define GPUMEM_RUNTIME_MEMOIZED_RUN_H_

#include <functional>
#include <memory>
#include <vector>

#include "core/status.h"
#include "core/units.h"

namespace gpumem {

// What a memoized body's requests are a function of. Two keys are equal only when the bodies
// make the same requests.
class RunKey {
 public:
  virtual ~RunKey() = default;
  virtual bool equals(const RunKey& other) const = 0;
  virtual std::unique_ptr<RunKey> clone() const = 0;
};

// A RunKey holding a value of type T (compared with ==).
template <typename T>
class RunKeyOf final : public RunKey {
 public:
  explicit RunKeyOf(T value) : value_(std::move(value)) {}
  bool equals(const RunKey& other) const override {
    const auto* o = dynamic_cast<const RunKeyOf*>(&other);
    return o != nullptr && o->value_ == value_;
  }
  std::unique_ptr<RunKey> clone() const override { return std::make_unique<RunKeyOf>(value_); }

 private:
  T value_;
};

// The free memory (cudaMemGetInfo's free) a body read, in order.
using FreeReadings = std::vector<Bytes>;
using MemoizedBody = std::function<Status(FreeReadings&)>;

class MemoizedRuns {
 public:
  virtual ~MemoizedRuns() = default;
  // Runs `body`, or restores what a run of it with an equal key from an indistinguishable
  // state ended in. `readings` receives the body's free-memory readings either way (as far
  // as it got, when it fails).
  virtual Status run(const RunKey& key, const MemoizedBody& body, FreeReadings& readings) = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_MEMOIZED_RUN_H_
