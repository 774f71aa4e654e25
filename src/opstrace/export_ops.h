// `gpumem export-ops`: a scenario's start-up program run over recording seams, giving one
// operation trace per rank (format "gpumem.ops/2", README.md here) for the torch probe to
// replay inside a real PyTorch process.
//
// The program runs exactly as `gpumem simulate` runs it — the simulated GPU and NCCL answer
// every call, so the KV cache, the batch sizes and every other decision are the simulator's
// — and the recorders write down what it asked for. Every rank runs its own program (the
// simulator's sharing of identical ranks is not used), since a trace names its rank's
// communicator groups. Weight lists are replayed tensor by tensor, as on the probe.
#ifndef GPUMEM_OPSTRACE_EXPORT_OPS_H_
#define GPUMEM_OPSTRACE_EXPORT_OPS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "alloc/allocator_config.h"
#include "core/status.h"
#include "engine/engine_constants.h"
#include "simulate/simulate.h"

namespace gpumem {

// /2 adds the "torch" operation (Device::use_pytorch_resource); the torch probe's replays
// of v1 traces ran programs that made no such use.
inline constexpr char kOpsTraceFormat[] = "gpumem.ops/2";

// What a trace says about its run besides the operations.
struct OpsTraceHeader {
  std::string scenario;
  std::string scenario_file;
  std::string gpu_type;
  std::string calibration;
  std::string interconnect_modelled;
  bool emulated = false;  // the modelled interconnect is not the GPU type's own
  // Environment variables the engine's process has set, beyond NCCL's (the scenario's
  // `engine.env`); NCCL's come from the program's settings.
  std::vector<std::pair<std::string, std::string>> env;
};

// PYTORCH_CUDA_ALLOC_CONF for `config` (empty: PyTorch's defaults); kInvalidInput for a
// setting PyTorch has no option for (its fixed size constants changed).
Result<std::string> pytorch_alloc_conf(const AllocatorConfig& config);

// One trace per rank of `run` (simulate/simulate.h: the start-up `gpumem simulate` would run),
// in rank order, its program built with `constants`. Errors: the program's NCCL settings or
// allocator configuration cannot be expressed as the environment of a PyTorch process.
Result<std::vector<nlohmann::ordered_json>> export_ops(const SimulatedStartup& run,
                                                       const EngineConstants& constants,
                                                       const OpsTraceHeader& header);

// The text of a trace: the header's fields one per line, then one operation per line, so
// that two exports diff line by line.
std::string ops_trace_text(const nlohmann::ordered_json& trace);

}  // namespace gpumem

#endif  // GPUMEM_OPSTRACE_EXPORT_OPS_H_
