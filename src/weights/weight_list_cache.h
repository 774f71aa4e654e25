// The weight lists a run of many similar plans shares (a sweep, a fit search, a benchmark):
// rank lists by (model, layout, rules), draft lists by (draft, target, context, layout,
// rules). It is an object the caller owns and passes in — no process-wide state — so tests
// and benchmarks choose whether lists are shared, and two callers never see each other's.
// Safe to use from many threads at once.
#ifndef GPUMEM_WEIGHTS_WEIGHT_LIST_CACHE_H_
#define GPUMEM_WEIGHTS_WEIGHT_LIST_CACHE_H_

#include <cstdint>

#include "catalog/architecture.h"
#include "weights/list_memo.h"
#include "weights/parallel_layout.h"
#include "weights/weight_rules.h"

namespace gpumem {

struct WeightListCache {
  ListMemo<Architecture, ParallelLayout, WeightRules> rank_lists;
  ListMemo<Architecture, Architecture, std::int64_t, ParallelLayout, WeightRules> draft_lists;
};

}  // namespace gpumem

#endif  // GPUMEM_WEIGHTS_WEIGHT_LIST_CACHE_H_
