#include "sim/rendezvous.h"

#include <algorithm>
#include <thread>

namespace gpumem {

namespace {

// How often a waiting participant yields before it sleeps.
constexpr int kYieldsBeforeSleeping = 2000;

}  // namespace

Result<std::int64_t> Rendezvous::min(std::int64_t value) {
  if (participants_ == 1) return value;
  std::uint64_t my_generation = 0;
  {
    std::lock_guard lock(mu_);
    if (!failed_.empty()) return Status(StatusCode::kAborted, "peer " + failed_ + " failed");
    accumulated_ = std::min(accumulated_, value);
    my_generation = generation_.load();
    if (++arrived_ == participants_) {
      result_ = accumulated_;
      accumulated_ = std::numeric_limits<std::int64_t>::max();
      arrived_ = 0;
      generation_.store(my_generation + 1);
      cv_.notify_all();
      return result_;
    }
  }
  for (int i = 0;
       i < kYieldsBeforeSleeping && generation_.load() == my_generation && !failed_any_.load();
       ++i) {
    std::this_thread::yield();
  }
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return generation_.load() != my_generation || !failed_.empty(); });
  if (generation_ == my_generation) {
    return Status(StatusCode::kAborted, "peer " + failed_ + " failed");
  }
  return result_;
}

void Rendezvous::fail(const std::string& who) {
  std::lock_guard lock(mu_);
  if (failed_.empty()) failed_ = who;
  failed_any_.store(true);
  cv_.notify_all();
}

}  // namespace gpumem
