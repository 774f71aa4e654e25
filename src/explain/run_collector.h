// Gathers what an engine reader recognises, line by line, into the runs of a StartupLog.
//
// A new run starts where a second start-up begins: a launch command or an argument dump
// after figures were already read, or a figure that a process already printed once in this
// run (SGLang's speculative draft re-prints its own weight and pool lines: its reader names
// those separately). Figures restated by a later summary line (vLLM's kv-cache-memory
// suggestion repeats the weights) keep the more precise of the two.
//
// A figure outside the bounds of explain/figure_bounds.h is refused: the first refusal is
// kept, located at its line and column, and the log is not explained.
#ifndef GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
#define GPUMEM_EXPLAIN_RUN_COLLECTOR_H_

#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "explain/log_line.h"
#include "explain/log_scan.h"
#include "explain/startup_log.h"

namespace gpumem {

class RunCollector {
 public:
  explicit RunCollector(StartupLog& log) : log_(log) {}

  LogRun& run() { return current_; }
  void start_of_run();
  // `n` is located in `line.message`. False when it was refused.
  bool add(Quantity q, const PrintedNumber& n, const LogLine& line);
  bool restate(Quantity q, const PrintedNumber& n, const LogLine& line);
  // False (and the log refused) when `n`, located in `line.message`, is out of the bounds
  // of a figure of `what` in `unit`.
  bool within_bounds(std::string_view what, FigureUnit unit, bool negative_allowed,
                     const PrintedNumber& n, const LogLine& line);
  // Refuses the log at `offset` bytes into `line.message`; the first refusal is kept.
  void refuse(const LogLine& line, size_t offset, std::string message);
  // "12:34: message" for the first refusal; "" when there was none.
  const std::string& refusal() const { return refusal_; }
  bool printed(Quantity q, const std::string& process) const;
  // The first statement of a flag wins; a different later one is noted.
  void flag(LoggedFlag f);
  // A flag's value that a log line printed outside the argument dump.
  void printed_flag(const LogLine& line, std::string name, std::string value, size_t offset = 0);
  // A count flag's value printed at `n` (max_model_len, context_len): refused when it is not
  // a count within bounds.
  void printed_count_flag(const LogLine& line, const PrintedNumber& n, std::string name);
  void problem(ProblemKind kind, const LogLine& line);
  void phase(std::string name, int line);
  void clue(std::string from, std::string before, std::string why, int line);
  void recognised(const LogLine& line);
  void finish();

 private:
  void push(Quantity q, const PrintedNumber& n, const LogLine& line);
  bool taken(Quantity q, const PrintedNumber& n, const LogLine& line);

  StartupLog& log_;
  std::string refusal_;
  LogRun current_;
  std::set<std::pair<Quantity, std::string>> seen_;
};

// Each engine's line reader: true when the line was one it knows.
bool read_sglang_line(const LogLine& line, RunCollector& c);
bool read_vllm_line(const LogLine& line, RunCollector& c);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
