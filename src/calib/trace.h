// A probe trace (gpumem.trace.v1, src/probe/README.md) as the checker and the fitter read it:
// per rank, per step, how much device memory the step took and how much was free after it.
//
// "Taken" is the drop of cudaMemGetInfo's free memory across the step. For the first step,
// which creates the CUDA context, there is no CUDA reading before it; NVML's used memory
// (read before any CUDA call) stands in.
#ifndef GPUMEM_CALIB_TRACE_H_
#define GPUMEM_CALIB_TRACE_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/scenario.h"
#include "core/status.h"
#include "core/units.h"
#include "device/category.h"
#include "runtime/ledger.h"

namespace gpumem {

// Which probe made a trace (its "probe" field): gpumem-probe runs the start-up program in a
// raw CUDA process and writes no such field; the torch probe (src/probe/torch) replays it
// in a PyTorch process. A calibration is fitted to, and checks, the traces of one probe.
inline constexpr std::string_view kRawProbe = "gpumem-probe";
inline constexpr std::string_view kTorchProbe = "torch";
// Not a probe: a calibration file whose context was fitted to the memory that public engine
// start-up logs show before the weights (`gpumem calibrate --from-logs`), for a GPU no probe
// ran on. Its process is a serving engine's, so it gives PyTorch's own costs as well.
inline constexpr std::string_view kLogsSource = "logs";

struct TraceStep {
  std::string name;
  std::string outcome;  // "ok", "out_of_memory", "aborted", "engine_error", "error"
  std::optional<Bytes> taken;
  std::optional<Bytes> free_after;
  Bytes allocated_after;
  Bytes reserved_after;
  double wall_s = 0;
  double start_s = 0;  // the monotonic clock when the step began (its origin is arbitrary)
  // What the probe itself had allocated after the step, by category; memory the driver or
  // NCCL took for itself appears only in `taken`.
  std::array<Bytes, kCategoryCount> own_after{};
};

struct Trace {
  std::string file;
  std::string probe{kRawProbe};
  std::string torch_version;  // the torch probe's PyTorch; empty for gpumem-probe
  // The torch probe's: the format of the operation trace it replayed ("gpumem.ops.v1" when
  // the trace does not say: the replays made before gpumem.ops/2); empty for gpumem-probe.
  std::string ops_format;
  std::string scenario;
  std::string scenario_file;
  int rank = 0;
  int world_size = 1;
  bool emulated = false;
  std::string gpu_name;        // as the driver names the GPU
  std::string driver_version;  // NVML's
  int cuda_runtime = 0;        // e.g. 13000
  int nccl_version = 0;        // e.g. 22809
  std::optional<Bytes> cuda_total;
  std::vector<TraceStep> steps;
  std::vector<Fact> facts;

  const TraceStep* step(std::string_view name) const;
};

Result<Trace> read_trace(const std::string& path);
// The same, from the file's text; `path` is used in messages.
Result<Trace> parse_trace(const std::string& path, const std::string& text);
// Every trace.rank<R>.json of `dir`, by rank; kNotFound when there is none, kInvalidInput when
// they are not one run (a rank missing or doubled, or world size, scenario, GPU or probe
// disagree).
Result<std::vector<Trace>> read_trace_dir(const std::string& dir);
// The traces of one run against the scenario they are checked with: the same number of GPUs
// and the GPU the scenario names (by its nvidia-smi name).
Status check_traces_match(const Scenario& scenario, const GpuSpec& gpu,
                          const std::vector<Trace>& traces);

// Every directory under `root` (recursively) that holds trace files, sorted.
std::vector<std::string> find_trace_dirs(const std::string& root);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_TRACE_H_
