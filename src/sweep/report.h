// A sweep's results as text: an aligned table, CSV or JSON, one row per point in grid order,
// and the search of `--best`: the point that maximises a result column among those that
// start.
//
// Columns: each axis's value (headed by its key), then `fits` (yes, no, invalid), the first
// failure (step and GPU), KV tokens, max running requests, minimum headroom, and a note
// (why a point failed or is invalid). The table prints headroom in MiB; CSV and JSON in
// bytes.
#ifndef GPUMEM_SWEEP_REPORT_H_
#define GPUMEM_SWEEP_REPORT_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/grid.h"
#include "sweep/point_result.h"

namespace gpumem::sweep {

// The columns --best accepts, in the spelling the reports use.
std::span<const std::string_view> best_columns();

// The column `name` names ("tokens" is kv_tokens, "headroom" is min_headroom, "requests"
// is max_running_requests); nullopt for any other name.
std::optional<std::string_view> best_column(std::string_view name);

// The first point, in grid order, with the largest value of `column` (a name best_column
// returns) among the points that fit and have a value there; nullopt when none does.
std::optional<size_t> best_point(const std::vector<PointResult>& results, std::string_view column);

struct SweepReport {
  std::string scenario;
  const Grid* grid = nullptr;
  const std::vector<PointResult>* results = nullptr;
  std::vector<size_t> rows;  // the points to print, in order
  std::string best_by;       // set when rows is the best point of --best
};

std::string render_sweep_table(const SweepReport& report);
std::string render_sweep_csv(const SweepReport& report);
std::string render_sweep_json(const SweepReport& report);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_REPORT_H_
