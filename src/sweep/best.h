// `--best [largest:|smallest:]KEY`: the one point of a sweep that answers "which value is
// best": the point, among those that start, with the largest (or smallest) value of KEY.
//
// KEY is a result column — kv_tokens (tokens), kv_tokens_total (total_tokens: over the
// data-parallel replicas), max_running_requests (requests), min_headroom (headroom) — or the
// key of a --vary axis whose values are numbers (`largest:--cuda-graph-max-bs`: the largest
// graph size that starts). A bare KEY is largest:KEY. Ties go to the point with more
// headroom (the safer of equals), then to the first in grid order.
#ifndef GPUMEM_SWEEP_BEST_H_
#define GPUMEM_SWEEP_BEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostics.h"
#include "sweep/grid.h"
#include "sweep/point_result.h"

namespace gpumem::sweep {

struct BestBy {
  bool largest = true;
  std::string key;             // the column's name, or the axis key as given
  std::optional<size_t> axis;  // set when KEY is an axis
  std::string text() const;    // "largest kv_tokens"
};

// The search `text` asks for over `axes`; nothing after an error (at "--best").
std::optional<BestBy> parse_best(std::string_view text, const std::vector<Axis>& axes,
                                 Diagnostics& diags);

// The best point among those that start (PointStatus::kFits), of the points offered in grid
// order: a sweep keeps this one result, not every point's.
class BestPoint {
 public:
  // `grid` must outlive this.
  BestPoint(const Grid& grid, BestBy by);

  void offer(size_t point, const PointResult& result);

  // Nothing when no point offered starts.
  std::optional<size_t> point() const { return point_; }
  // REQUIRES: point().
  const PointResult& result() const { return result_; }

 private:
  const Grid& grid_;
  BestBy by_;
  std::optional<size_t> point_;
  PointResult result_;
  double value_ = 0;
  std::int64_t headroom_ = 0;
};

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_BEST_H_
