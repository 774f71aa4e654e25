// Gathers what an engine reader recognises, line by line, into the runs of a StartupLog.
//
// A new run starts where a second start-up begins: a launch command or an argument dump
// after figures were already read, or a figure that a process already printed once in this
// run (SGLang's speculative draft re-prints its own weight and pool lines: its reader names
// those separately). Figures restated by a later summary line (vLLM's kv-cache-memory
// suggestion repeats the weights) keep the more precise of the two.
//
// A second process of a role that runs once per launch (vLLM's EngineCore, a rank's worker)
// with another pid is a new start-up too: a post that pastes two attempts with the same
// prefixes; a process an earlier start-up had takes that one up again; a line whose time is
// earlier than the process's previous line starts another, and so does a figure another
// rank printed more than two minutes before (ranks print a phase within seconds). The runs
// are in the order of their first lines. A figure vLLM's engine process prints once per worker with
// no rank in its prefix (before v0.10 the KV cache size and concurrency, one line per rank, in rank
// order) is the next worker's when it repeats the value, not a new start-up.
//
// A figure outside the bounds of explain/figure_bounds.h is refused: the first refusal is
// kept, located at its line and column, and the log is not explained.
#ifndef GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
#define GPUMEM_EXPLAIN_RUN_COLLECTOR_H_

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "explain/log_line.h"
#include "explain/log_scan.h"
#include "explain/startup_log.h"

namespace gpumem {

class RunCollector {
 public:
  // `lines` is the whole log, which prints_before looks ahead in.
  RunCollector(StartupLog& log, std::span<const LogLine> lines) : log_(log), lines_(lines) {}

  LogRun& run() { return current_; }
  void start_of_run();
  // A launch command at `line` starts this run. One that came before it with no figure in
  // between printed nothing (a post that lists the commands it compares, then each one's
  // output): its model and flags are not this run's and are dropped.
  void launch_command(int line);
  // Called with every line before it is read: starts another run (or takes up an earlier
  // one) when its process or time says it belongs to another launch, and keeps the line's
  // rank prefix.
  void line_seen(const LogLine& line);
  // `n` is located in `line.message`. False when it was refused.
  bool add(Quantity q, const PrintedNumber& n, const LogLine& line);
  bool restate(Quantity q, const PrintedNumber& n, const LogLine& line);
  bool add_per_worker(Quantity q, const PrintedNumber& n, const LogLine& line);
  // False (and the log refused) when `n`, located in `line.message`, is out of the bounds
  // of a figure of `what` in `unit`.
  bool within_bounds(std::string_view what, FigureUnit unit, bool negative_allowed,
                     const PrintedNumber& n, const LogLine& line);
  // Refuses the log at `offset` bytes into `line.message`; the first refusal is kept.
  void refuse(const LogLine& line, size_t offset, std::string message);
  // "12:34: message" for the first refusal; "" when there was none.
  const std::string& refusal() const { return refusal_; }
  bool printed(Quantity q, const std::string& process) const;
  // Whether `line`'s process prints a message starting with `start` later in the log, before
  // one starting with `until`: a line read alone cannot tell what it belongs to (SGLang's
  // sliding-window pool prints its two pools' lines, then the pool's own).
  bool prints_before(const LogLine& line, std::string_view start, std::string_view until) const;
  // Whether `line` comes so long after this run first printed `q` (half an hour) that it is
  // another launch's, whatever the process: a speculative draft loads right after its target.
  bool long_after(Quantity q, const LogLine& line) const;
  // The first statement of a flag wins, unless a later one is printed with the KV cache's
  // figures (LoggedFlag::with_figures); a different later one is noted.
  void flag(LoggedFlag f);
  // A flag's value that a log line printed outside the argument dump.
  void printed_flag(const LogLine& line, std::string name, std::string value, size_t offset = 0);
  // A count flag's value printed at `n` (max_model_len, context_len): refused when it is not
  // a count within bounds.
  // `with_figures`: the line is one of the KV cache's own figures (LoggedFlag::with_figures).
  void printed_count_flag(const LogLine& line, const PrintedNumber& n, std::string name,
                          bool with_figures = false);
  // A failure; one the same process already stated in this start-up (a traceback that ends
  // with its message again) is the same failure, not another start-up.
  void problem(ProblemKind kind, const LogLine& line);
  bool repeated_failure(const LogLine& line) const;
  void phase(std::string name, int line);
  void clue(std::string from, std::string before, std::string why, int line);
  // ... and one of a vLLM source line, with the newest release seen logging it there.
  void source_line_clue(std::string from, std::string before, std::string why, int line,
                        std::string seen);
  void recognised(const LogLine& line);
  void finish();

 private:
  // Finishes this run, or takes up an earlier one, when `line` belongs to another launch.
  void switch_runs(const LogLine& line);
  void push(Quantity q, const PrintedNumber& n, const LogLine& line,
            std::optional<int> rank = std::nullopt);
  bool taken(Quantity q, const PrintedNumber& n, const LogLine& line);
  // What torch's out-of-memory message states: asked, free, the GPU's total.
  void read_out_of_memory(const LogLine& line, LoggedProblem& p);

  StartupLog& log_;
  std::span<const LogLine> lines_;
  std::string refusal_;
  LogRun current_;
  int command_line_ = 0;  // the launch command of the current run (0: none read)
  std::set<std::pair<Quantity, std::string>> seen_;
  std::map<std::string, std::string> pid_of_role_;  // this run's once-per-launch processes
  std::map<std::string, std::string> last_time_;    // each process's latest time in this run
  std::map<Quantity, long long> first_time_;        // when this run first printed each figure
  std::vector<std::map<std::string, std::string>> finished_pids_;  // each of log_.runs'
};

// torch's and CUDA's out-of-memory errors: "torch.OutOfMemoryError: CUDA out of memory.
// Tried to allocate ...", "RuntimeError: CUDA error: out of memory" (a failed graph capture).
bool is_out_of_memory(std::string_view message);

// Each engine's line reader: true when the line was one it knows.
bool read_sglang_line(const LogLine& line, RunCollector& c);
bool read_vllm_line(const LogLine& line, RunCollector& c);
// Which vLLM model runner `line` shows, if any (LogRun::v2_model_runner); every line is offered.
void note_model_runner(const LogLine& line, RunCollector& c);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
