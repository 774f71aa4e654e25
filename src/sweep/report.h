// A sweep's results as text: an aligned table, CSV or JSON, one row per point in grid order,
// or the one point `--best` found (sweep/best.h).
//
// Columns: each axis's value (headed by its key), then `fits` (yes; tight: it starts with
// less headroom than --min-headroom asked; no; invalid), the first failure (step and GPU),
// KV tokens (a replica's), KV tokens over the data-parallel replicas, max running requests,
// minimum headroom, and a note (why a point failed or is invalid). The table prints headroom
// in MiB; CSV and JSON in bytes. Every output says which calibration the predictions stand
// on, and that a GPU without one is predicted from published figures only.
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

struct SweepReport {
  std::string scenario;
  const Grid* grid = nullptr;
  const std::vector<PointResult>* results = nullptr;
  std::vector<size_t> rows;  // the points to print, in order
  std::string best_by;       // set when rows is the best point of --best: "largest kv_tokens"
  Bytes min_headroom = bytes(0);  // what starting asked for (--min-headroom)
};

std::string render_sweep_table(const SweepReport& report);
std::string render_sweep_csv(const SweepReport& report);
std::string render_sweep_json(const SweepReport& report);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_REPORT_H_
