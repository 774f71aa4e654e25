// One line of an engine log with the frame around the engine's message taken off: ANSI
// colour codes, carriage-return progress redraws, timestamps, log levels, source locations,
// and the rank or process prefix SGLang and vLLM put in front of a worker's lines:
//
//   [2025-03-08 12:29:13 TP3] Load weight end. ...                     SGLang, rank TP3
//   (VllmWorker rank=1 pid=42) INFO 12-13 19:54:18 worker.py:243] ...  vLLM V0, rank 1
//   (EngineCore_DP0 pid=3021) INFO 09-23 18:12:21 [gpu_model_runner.py:2392] ...   vLLM V1
//
// Anything in front of a recognised frame (a container name, a second timestamp) is dropped
// too, so a log piped through docker or kubectl reads the same. Lines of different ranks may
// interleave in any order: each keeps the rank its own prefix names.
#ifndef GPUMEM_EXPLAIN_LOG_LINE_H_
#define GPUMEM_EXPLAIN_LOG_LINE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumem {

// Where a byte of a message stands in the file.
struct LogPosition {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
};

// Whose frame a line carries: evidence of the engine that wrote the log.
enum class FrameKind { kNone, kSglang, kVllm };

struct LogLine {
  int number = 0;       // 1-based line number in the log
  std::string message;  // the engine's own text, trimmed
  int column = 1;       // where `message` starts in the file's line (1-based, in bytes)
  // A launch command continued with trailing backslashes is one message: where each later
  // line's text starts in `message`, and in the file.
  struct Continuation {
    size_t offset = 0;
    LogPosition at;
  };
  std::vector<Continuation> continuations;
  std::string process;  // what the prefix names: "TP3", "VllmWorkerProcess pid=6494"; "" if none
  // The process named before it, when a line carries two: vLLM V1's engine core around a Ray
  // worker, "(EngineCore pid=8) (RayWorkerWrapper pid=9) ".
  std::string outer_process;
  // Ray's log deduplication: "[repeated 30x across cluster]" after the message says 30 more
  // workers printed it (taken off the message).
  int cluster_repeats = 0;
  std::string level;      // INFO, WARNING, ERROR, ... when printed
  std::string source;     // vLLM's "[gpu_worker.py:298]" as "gpu_worker.py:298"; "" if none
  std::optional<int> tp;  // SGLang "TP3"; vLLM "rank=3" or "Worker_TP3"
  std::optional<int> pp;  // SGLang "PP1"
  std::optional<int> dp;  // SGLang "DP0"; vLLM "EngineCore_DP0"
  std::optional<int> ep;  // vLLM "Worker_DP1_TP1_EP3" (expert parallelism on)
  bool framed = false;    // a timestamp, level or process prefix was taken off
  std::string date;       // "2025-03-08" when the frame or prefix carries a full date
  std::string time;       // the frame's time as printed ("2025-03-08 12:29:13", "12-13 19:54:18")
  FrameKind frame = FrameKind::kNone;

  // The line and column of `message[offset]`.
  LogPosition position(size_t offset) const;
};

// ESC[...m colour sequences, and the same sequences whose ESC byte a copy-paste lost
// ("[32mINFO[0m"). When `origin` is given, it receives, for each byte kept, its offset in
// `text` (so a position in the result can be reported as a column of the input).
std::string strip_ansi(std::string_view text, std::vector<size_t>* origin = nullptr);

// Every line of `text` (LF or CRLF), numbered from 1, framing removed. Empty lines are kept
// (with an empty message) so numbers stay those of the file.
std::vector<LogLine> split_log_lines(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOG_LINE_H_
