// Where simulated ranks meet for their host-side collectives.
//
// The simulator runs one representative per class of identical ranks; with several classes
// each runs on its own thread and meets the others here for every collective, as the real
// ranks meet in gloo/NCCL. A participant that fails (out of memory) leaves: the others'
// next meeting returns kAborted naming it, the way a real engine's ranks stop when one dies.
// With a single participant every call returns at once without locking anyone.
//
// A waiting participant first yields its core for a while before it sleeps: a start-up's
// collectives come every few microseconds of simulated work, and sleeping on a condition
// variable costs a wake-up (two context switches) per meeting — on two cores, 16 GPUs in
// two classes took 6,882 switches and a third of a second.
#ifndef GPUMEM_SIM_RENDEZVOUS_H_
#define GPUMEM_SIM_RENDEZVOUS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>

#include "core/status.h"

namespace gpumem {

class Rendezvous {
 public:
  explicit Rendezvous(int participants) : participants_(participants) {}

  // MIN of every participant's value; all participants must call it, in the same order.
  Result<std::int64_t> min(std::int64_t value);
  Status barrier() { return min(0).status(); }

  // `who` failed and leaves; pending and later meetings abort with `who` in the message.
  void fail(const std::string& who);

 private:
  const int participants_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  std::atomic<std::uint64_t> generation_ = 0;  // written under mu_, read while yielding
  std::atomic<bool> failed_any_ = false;
  std::int64_t accumulated_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t result_ = 0;
  std::string failed_;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_RENDEZVOUS_H_
