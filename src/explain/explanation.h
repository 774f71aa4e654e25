// A logged start-up explained: the scenario it implies (or the user's own), replayed with the
// values the log printed pinned, every logged figure set against gpumem's prediction of the
// same line, and a diagnosis — where memory went, which step failed on which GPU and by how
// much, and the smallest flag change that would have made it start (engine/fit_advice.h).
//
// Predictions are read back from the replay's own log lines (the engines print them in the
// engine's wording, engine/*/log_lines.cc) with the same reader as the real log, so a figure
// is compared with exactly the line that prints it. Memory is in GiB as the engines print it.
//
// Tolerances (ExplainTolerances): a memory figure matches when the difference is within the
// stated tolerance plus half a unit of the last digit each side was printed with. A token
// count is exact when the input it follows from was printed exactly (vLLM's "Current kv cache
// memory in use is N bytes"); otherwise it may differ by the tokens that the input's print
// rounding spans (half a unit of its last digit divided by the bytes one token takes), plus
// one block for vLLM, whose cache is a whole number of blocks.
#ifndef GPUMEM_EXPLAIN_EXPLANATION_H_
#define GPUMEM_EXPLAIN_EXPLANATION_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "core/exit_codes.h"
#include "explain/implied_scenario.h"
#include "explain/startup_log.h"
#include "runtime/ledger.h"
#include "simulate/simulate.h"

namespace gpumem {

struct ExplainTolerances {
  // How far a predicted memory figure may stray from a logged one, beyond print rounding.
  // gpumem is calibrated on H200 traces to a few MiB per step (README); other GPUs run on
  // published figures, and a logged run's unlogged settings (driver, allocator) are unknown.
  double memory_gib = 0.10;
  // vllm v0.10.2 config/cache.py CacheConfig: block_size defaults to 16 tokens on CUDA.
  int vllm_block_tokens = 16;
};

enum class Verdict { kMatch, kMiss, kPinned, kNotPredicted };

std::string_view verdict_name(Verdict v);  // "ok", "MISS", "pinned", "not predicted"

struct FigureCheck {
  Quantity quantity;
  double logged = 0;
  int decimals = kExact;
  int line = 0;
  std::string process;
  int gpu = 0;  // the global rank compared
  std::optional<double> predicted;
  double tolerance = 0;  // in the figure's unit, print rounding included
  Verdict verdict = Verdict::kNotPredicted;
};

// The part of the engine's memory arithmetic that a start-up's own logged figures determine,
// done when the full replay cannot be (explain/partial_replay.h).
struct PartialReplay {
  std::string label;  // what it covers and what it leaves out, for the start-up's heading
  bool fits = true;   // the log's own arithmetic leaves the KV cache what it needs
};

struct RunExplanation {
  int first_line = 0;
  int last_line = 0;
  LogRun run;
  ImpliedScenario implied;          // what the log implies (always computed)
  std::string scenario_file;        // the user's scenario; "" when the implied one is used
  std::vector<std::string> pinned;  // observed keys the log pinned ("free_after_weights")
  std::vector<Pin> pins;
  bool from_scratch = false;  // the log's values were left unpinned on purpose
  std::string not_replayed;   // why there is no replay ("" when replayed)
  std::optional<Ledger> ledger;
  std::vector<FigureCheck> figures;
  std::vector<std::string> diagnosis;
  std::string advice;                    // fit_advice's text; "" when the replay fits
  std::optional<PartialReplay> partial;  // set when not replayed but partly checked

  bool replayed() const { return ledger.has_value(); }
};

struct Explanation {
  std::string log_file;
  LogEngine engine = LogEngine::kSglang;
  std::vector<RunExplanation> runs;
};

// The constants for a scenario's simulation (the CLI picks the calibration entry).
using ConstantsFor =
    std::function<std::optional<SimulationConstants>(const Scenario&, Diagnostics&)>;

struct ExplainContext {
  const GpuCatalog& gpus;
  const ModelCatalog& models;
  ConstantsFor constants;
  ExplainTolerances tolerances;
};

// What the user adds to a log that does not print it (the post's prose names the GPU, the
// model or the GPU count): fills the implied scenario of every start-up in the log.
struct ExplainOverrides {
  std::string gpu;    // a GPU catalog name or alias
  std::string model;  // a model catalog slug
  int gpu_count = 0;  // GPUs in all; 0: as the log implies
  // The engine release, where the log's own version (or the one its wording and dates imply)
  // is not the one that ran: a PR's branch, a build of the development branch.
  std::string engine_version;
  // Replay without the logged values pinned: gpumem's prediction alone, to measure it.
  bool from_scratch = false;
};

// Explains one logged start-up of `log_file`. `user` (may be null) replaces the implied
// scenario; the log then only pins the values it printed that the scenario leaves unset.
// An error the scenario's reader or the engine finds in the implied scenario is reported at
// the line and column of the log its value was read from. `advise`: run the fit advice for a
// start-up that does not fit (a caller that only compares figures leaves it out).
RunExplanation explain_run(const LogRun& run, LogEngine engine, const std::string& log_file,
                           const std::string& name, const Scenario* user,
                           const ExplainOverrides& overrides, const ExplainContext& ctx,
                           bool advise = true);

// Every start-up of `log`.
Explanation explain_log(const StartupLog& log, const std::string& log_file, const Scenario* user,
                        const ExplainOverrides& overrides, const ExplainContext& ctx);

// 0 when every replayed start-up completes, 1 when one does not fit (by the replay, or by the
// log's own arithmetic where only a partial replay ran), 2 when one could not be checked at
// all (the scenario it implies is incomplete or wrong and the log's figures determine
// nothing).
ExitCode explanation_exit_code(const Explanation& e);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_EXPLANATION_H_
