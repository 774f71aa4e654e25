// The grid of a sweep: the product of its axes, and the scenario of each point.
//
// Points are numbered in grid order: the first axis varies slowest, the last fastest, as
// nested loops in the order the axes were given. A point's scenario is the base scenario
// with each axis's key set to the point's value: a flag the base gives (under any of its
// spellings) takes the new value, a flag or variable it does not give is added.
//
// `PointScenarios` builds them in place: the working copy of the base is made once and a
// point only overwrites the varied values, so moving from point to point copies no
// scenario (a sweep evaluates millions).
#ifndef GPUMEM_SWEEP_GRID_H_
#define GPUMEM_SWEEP_GRID_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "catalog/scenario.h"
#include "sweep/axis.h"

namespace gpumem::sweep {

class Grid {
 public:
  // REQUIRES: every axis passed check_axis.
  explicit Grid(std::vector<Axis> axes);

  const std::vector<Axis>& axes() const { return axes_; }
  size_t size() const { return size_; }
  // The value index on axis `a` of point `point`.
  size_t coordinate(size_t point, size_t a) const { return point / strides_[a] % extents_[a]; }
  const std::string& value(size_t point, size_t a) const {
    return axes_[a].values[coordinate(point, a)];
  }

 private:
  std::vector<Axis> axes_;
  std::vector<size_t> extents_;
  std::vector<size_t> strides_;
  size_t size_ = 1;
};

// The most points a grid may have (results stream, sweep/sweep.h: the cap bounds run time).
inline constexpr size_t kMaxGridPoints = 50'000'000;

// The number of points of `axes`, or nullopt when it exceeds kMaxGridPoints.
std::optional<size_t> grid_size(const std::vector<Axis>& axes);

class PointScenarios {
 public:
  PointScenarios(const Scenario& base, const Grid& grid);

  // The scenario of `point`; valid until the next call. Sets `error` (else clears it) when
  // the point contradicts the rest of the scenario in a way the scenario reader would have
  // refused (a preoccupied GPU beyond a smaller hardware.count).
  const Scenario& at(size_t point, std::string& error);

 private:
  const Grid& grid_;
  Scenario scenario_;
  std::vector<size_t> slots_;  // per axis: the engine arg or env entry it writes
};

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_GRID_H_
