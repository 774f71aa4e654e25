#include "sim/rendezvous.h"

#include <algorithm>

namespace gpumem {

Result<std::int64_t> Rendezvous::min(std::int64_t value) {
  if (participants_ == 1) return value;
  std::unique_lock lock(mu_);
  if (!failed_.empty()) return Status(StatusCode::kAborted, "peer " + failed_ + " failed");
  accumulated_ = std::min(accumulated_, value);
  const std::uint64_t my_generation = generation_;
  if (++arrived_ == participants_) {
    result_ = accumulated_;
    accumulated_ = std::numeric_limits<std::int64_t>::max();
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return result_;
  }
  cv_.wait(lock, [&] { return generation_ != my_generation || !failed_.empty(); });
  if (generation_ == my_generation) {
    return Status(StatusCode::kAborted, "peer " + failed_ + " failed");
  }
  return result_;
}

void Rendezvous::fail(const std::string& who) {
  std::lock_guard lock(mu_);
  if (failed_.empty()) failed_ = who;
  cv_.notify_all();
}

}  // namespace gpumem
