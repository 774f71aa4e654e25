// A point in time after which a wait gives up.
//
// Every wait in the probe (sockets, NCCL initialisation, stream completion, child processes)
// is bounded, so that a rank whose peer died reports it instead of hanging. A `Deadline` is
// built from a timeout on the monotonic clock and answers how long is left, in the forms
// poll(2) and sleep loops want.
#ifndef GPUMEM_PROBE_DEADLINE_H_
#define GPUMEM_PROBE_DEADLINE_H_

#include <algorithm>
#include <chrono>

namespace gpumem::probe {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Deadline(std::chrono::milliseconds timeout)
      : timeout_(timeout), end_(Clock::now() + timeout) {}

  bool expired() const { return Clock::now() >= end_; }

  std::chrono::milliseconds remaining() const {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now());
    return std::max(left, std::chrono::milliseconds(0));
  }

  // Milliseconds for one poll(2) call: what is left, but at most `cap_ms`, so that a loop
  // also gets to check other conditions (a peer's death, a signal) now and then.
  int poll_ms(int cap_ms) const {
    return static_cast<int>(std::min<std::chrono::milliseconds::rep>(remaining().count(), cap_ms));
  }

  // The timeout in seconds, for messages ("did not finish in 120 s").
  double timeout_s() const { return static_cast<double>(timeout_.count()) / 1000.0; }

 private:
  std::chrono::milliseconds timeout_;
  Clock::time_point end_;
};

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_DEADLINE_H_
