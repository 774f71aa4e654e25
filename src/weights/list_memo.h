// The last few weight lists a pure builder made, shared by every thread.
//
// A sweep or a fit search builds plans for one model under a handful of layouts many times
// over. Building a list (thousands of named tensors, quantization patterns matched per
// module) costs far more than comparing its arguments, so equal arguments get the very same
// list back — or the same error. Sharing the list also lets the simulator recognise a load
// it has replayed before (sim/weight_load_memo.h keys on the list). Lists are immutable.
#ifndef GPUMEM_WEIGHTS_LIST_MEMO_H_
#define GPUMEM_WEIGHTS_LIST_MEMO_H_

#include <array>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "core/status.h"
#include "weights/weight_tensor.h"

namespace gpumem {

template <typename... Args>
class ListMemo {
 public:
  // The list `build()` makes for `args`, built at most once while it stays among the last
  // sixteen argument sets.
  template <typename Build>
  Result<WeightList> get(const Args&... args, Build build) {
    {
      std::lock_guard lock(mu_);
      for (const Entry& e : entries_) {
        if (e.list && e.args == std::tie(args...)) return *e.list;
      }
    }
    Result<std::vector<WeightTensor>> built = build();
    auto list = std::make_shared<const Result<WeightList>>(
        built.ok() ? Result<WeightList>(
                         std::make_shared<const std::vector<WeightTensor>>(std::move(*built)))
                   : Result<WeightList>(built.status()));
    std::lock_guard lock(mu_);
    entries_[next_] = Entry{std::tuple<Args...>(args...), list};
    next_ = (next_ + 1) % entries_.size();
    return *list;
  }

 private:
  struct Entry {
    std::tuple<Args...> args;
    std::shared_ptr<const Result<WeightList>> list;  // null: an empty slot
  };
  std::mutex mu_;
  std::array<Entry, 16> entries_;  // replaced oldest first
  size_t next_ = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_LIST_MEMO_H_
