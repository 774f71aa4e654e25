// Gathers what an engine reader recognises, line by line, into the runs of a StartupLog.
//
// A new run starts where a second start-up begins: a launch command or an argument dump
// after figures were already read, or a figure that a process already printed once in this
// run (SGLang's speculative draft re-prints its own weight and pool lines: its reader names
// those separately). Figures restated by a later summary line (vLLM's kv-cache-memory
// suggestion repeats the weights) keep the more precise of the two.
#ifndef GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
#define GPUMEM_EXPLAIN_RUN_COLLECTOR_H_

#include <set>
#include <string>
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
  void add(Quantity q, const PrintedNumber& n, const LogLine& line);
  void restate(Quantity q, const PrintedNumber& n, const LogLine& line);
  bool printed(Quantity q, const std::string& process) const;
  // The first statement of a flag wins; a different later one is noted.
  void flag(LoggedFlag f);
  // A flag's value that a log line printed outside the argument dump.
  void printed_flag(const LogLine& line, std::string name, std::string value);
  void problem(ProblemKind kind, const LogLine& line);
  void phase(std::string name, int line);
  void clue(std::string from, std::string before, std::string why, int line);
  void recognised(const LogLine& line);
  void finish();

 private:
  void push(Quantity q, const PrintedNumber& n, const LogLine& line);

  StartupLog& log_;
  LogRun current_;
  std::set<std::pair<Quantity, std::string>> seen_;
};

// Each engine's line reader: true when the line was one it knows.
bool read_sglang_line(const LogLine& line, RunCollector& c);
bool read_vllm_line(const LogLine& line, RunCollector& c);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_RUN_COLLECTOR_H_
