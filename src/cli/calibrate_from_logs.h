// `gpumem calibrate --from-logs LOG|DIR... --gpu NAME -o model/calibration/NAME.yaml`: fits a
// GPU's CUDA context to the memory that public engine start-up logs show before the weights
// (calib/log_fit.h), for a GPU no probe ran on, and writes a calibration file marked
// `probe: logs` (every report then names the constants log-calibrated) with a report of every
// figure, fitted and held out (--hold-out names a log by its file name without .log), and of
// every start-up on the GPU that was left out and why.
#ifndef GPUMEM_CLI_CALIBRATE_FROM_LOGS_H_
#define GPUMEM_CLI_CALIBRATE_FROM_LOGS_H_

#include <string>
#include <vector>

#include "cli/command.h"

namespace gpumem::cli {

struct LogCalibrationOptions {
  std::vector<std::string> inputs;  // log files, or directories of *.log files
  std::string gpu;
  std::string output;
  std::vector<std::string> hold_out;  // log file names without .log
  std::string report_dir;
  std::string stand_in;  // the catalog model replayed where a log's model cannot be built
};

ExitCode calibrate_from_logs(const LogCalibrationOptions& o, const GlobalOptions& global);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_CALIBRATE_FROM_LOGS_H_
