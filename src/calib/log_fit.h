// Fitting a GPU's CUDA context to public start-up logs, for a GPU no probe ran on.
//
// What an engine shows before it loads the weights does not depend on the model: SGLang's
// "Load weight begin. avail mem=F" and vLLM's "Free memory on device (F/T GiB) on startup"
// (its init snapshot) are both taken after the CUDA context and the communicators. So every
// start-up log that prints one measures the memory the process held before the weights,
// T - F; gpumem predicts the same from the context, the communicators and PyTorch's own
// first-use costs. The context is the constant of those that depends on the GPU (it grows
// with its SMs); the others are the engine's and the architecture's code, measured by probe
// traces of GPUs of the same kind, and the communicators' memory is the NCCL model's.
//
// So the context is fitted only where the communicators are not in the figure: on one GPU
// (no communicator), or where SGLang prints the rank's own "Init torch distributed ends. mem
// usage=D" beside F (then T - F - D is compared, against gpumem's T - F - D). A figure of
// several GPUs without D is checked with the fitted context, not fitted on: it shows the
// communicators' error, which the context must not absorb.
//
// Each start-up on the GPU is replayed from scratch (nothing the log printed pinned) with its
// own model where gpumem can build it, and otherwise with a stand-in model: the weights do not
// reach these figures (the derivative of each by the context is measured; one the context does
// not move is not fitted on). T is the total the log prints on the same line where it prints
// one (a vLLM line does), else the catalog's CUDA total. The context moves by least squares
// (one constant: the normal equation is a ratio), in Gauss-Newton rounds until it stays. A
// log held out is replayed with the fitted context and never fitted on. A figure more than
// kOutlierGap from the start prediction is left out by name: no context is that large, so
// other processes held the GPU, or the log's GPU is another than the one stated; so is a
// start-up whose GPU explain took for the nearest CUDA total rather than a name.
#ifndef GPUMEM_CALIB_LOG_FIT_H_
#define GPUMEM_CALIB_LOG_FIT_H_

#include <optional>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/status.h"
#include "explain/explanation.h"
#include "explain/startup_log.h"
#include "simulate/simulate.h"

namespace gpumem {

// One log file and what its reader adds: the options of its `# explain-args:` header, the
// scenario written beside it (the same name, .yaml), and whether it is held out of the fit.
struct LogCase {
  std::string file;
  StartupLog log;
  ExplainOverrides overrides;
  std::optional<Scenario> scenario;
  bool held_out = false;
};

// What a figure is to the fit.
enum class FigureRole {
  kFitted,   // the context alone, or with SGLang's logged D taken out
  kHeldOut,  // its log was held out: checked with the fitted context
  kChecked,  // several GPUs and no D: the communicators are in it; checked, not fitted
};

// One figure printed before the weights, compared as the memory in use before them (T - F,
// less D where SGLang prints it).
struct ContextFigure {
  std::string file;
  int startup = 0;  // 1-based, within the log
  int line = 0;
  int gpu = 0;  // the global rank that printed it
  Quantity quantity = Quantity::kFreeBeforeWeights;
  double logged_gib = 0;                         // F as printed
  std::optional<double> logged_total_gib;        // T where the same line prints it
  std::optional<double> logged_distributed_gib;  // D, the rank's SGLang distributed init
  Bytes used_logged;                             // T - F (- D), the log's
  Bytes used_start;                              // gpumem's, with the start constants
  Bytes used_fitted;                             // gpumem's, with the fitted context
  double derivative = 0;                         // d used / d context, measured
  FigureRole role = FigureRole::kFitted;
  std::string model;  // the model replayed: the log's, or the stand-in and what it stands for
};

// A start-up on the GPU that prints such a figure but could not be used, and why.
struct LeftOutStartup {
  std::string file;
  int startup = 0;
  int first_line = 0;
  std::string why;
};

struct LogFitOutcome {
  Bytes start_context;
  Bytes fitted_context;
  int rounds = 0;
  std::vector<ContextFigure> figures;  // fitted and held out, in the logs' order
  std::vector<LeftOutStartup> left_out;
};

// Beyond this gap between the log and the start prediction a figure is not the context's.
inline const Bytes kOutlierGap = gib(2);

// Fits the context of `gpu` to the logs' figures, from `start` (the constants the GPU is
// simulated with today). `stand_in` is the catalog model replayed where a log's model cannot
// be built. An error when no figure is left to fit on.
Result<LogFitOutcome> fit_context_to_logs(const std::vector<LogCase>& cases, const GpuSpec& gpu,
                                          const SimulationConstants& start, const GpuCatalog& gpus,
                                          const ModelCatalog& models, const std::string& stand_in);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_LOG_FIT_H_
