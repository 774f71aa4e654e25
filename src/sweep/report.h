// A sweep's results as text: an aligned table, CSV or JSON, one row per point in grid order,
// or the one point `--best` found (sweep/best.h), written as the results arrive.
//
// Columns: each axis's value (headed by its key), then `fits` (yes; tight: it starts with
// less headroom than --min-headroom asked; no; invalid), the first failure (step and GPU),
// KV tokens (a replica's), KV tokens over the data-parallel replicas, max running requests,
// minimum headroom, and a note (why a point failed or is invalid). The table prints headroom
// in MiB; CSV and JSON in bytes. Every output says which calibration the predictions stand
// on, and that a GPU without one is predicted from published figures only.
//
// Nothing is kept per point: CSV rows and JSON points are written as they come (JSON puts
// the counts over every point, `starting_points` and `calibration`, after `points`); the
// table, whose summary comes first and whose columns are as wide as their widest cell, keeps
// its rows in a temporary file until the last one is known.
#ifndef GPUMEM_SWEEP_REPORT_H_
#define GPUMEM_SWEEP_REPORT_H_

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "sweep/grid.h"
#include "sweep/point_result.h"

namespace gpumem::sweep {

// Where a report's text goes, piece by piece (standard output, or a file staged to be
// renamed into place); a failed write ends the report with its status.
using TextOut = std::function<Status(std::string_view text)>;

struct SweepHeading {
  std::string scenario;
  const Grid* grid = nullptr;
  std::string best_by;            // set when the one row is the best point of --best
  Bytes min_headroom = bytes(0);  // what starting asked for (--min-headroom)
};

class SweepWriter {
 public:
  virtual ~SweepWriter() = default;

  // Every point's result, in grid order, printed or not: the counts of the summary.
  void count(const PointResult& result);
  // A printed row, in grid order.
  virtual Status row(size_t point, const PointResult& result) = 0;
  // After the last row.
  virtual Status finish() = 0;

 protected:
  SweepWriter(SweepHeading heading, TextOut out);
  // The first line of the table: "N points, M start".
  std::string summary_line() const;
  // Notes which calibration a printed row stands on; each once.
  void note_calibration(const PointResult& result);

  SweepHeading heading_;
  TextOut out_;
  size_t counted_ = 0;
  size_t fitting_ = 0;
  std::vector<std::string> calibrations_;
};

// `format`: table, csv or json. Fails only when the table's temporary file cannot be made.
Result<std::unique_ptr<SweepWriter>> sweep_writer(std::string_view format, SweepHeading heading,
                                                  TextOut out);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_REPORT_H_
