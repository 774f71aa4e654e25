#include "explain/log_reader.h"

#include <vector>

#include "explain/command_line.h"
#include "explain/log_line.h"
#include "explain/run_collector.h"

namespace gpumem {
namespace {

bool may_start_command(std::string_view m) {
  return contains(m, "vllm serve") || contains(m, "vllm.entrypoints") ||
         contains(m, "sglang.launch_server");
}

// A launch command continued with a trailing backslash spans several lines: joined here.
std::vector<LogLine> join_continuations(std::vector<LogLine> lines) {
  std::vector<LogLine> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    LogLine l = std::move(lines[i]);
    if (may_start_command(l.message)) {
      // A log line after a trailing backslash is not part of the command (a pasted command
      // often keeps its last backslash).
      while (!l.message.empty() && l.message.back() == '\\' && i + 1 < lines.size() &&
             !lines[i + 1].framed) {
        l.message.pop_back();
        l.message += " ";
        const LogLine& next = lines[++i];
        l.continuations.push_back({l.message.size(), {next.number, next.column}});
        l.message += next.message;
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

// The GPU's name and size where a pasted nvidia-smi table, collect_env or a torch device
// print shows them.
bool read_gpu_line(const LogLine& l, RunCollector& c) {
  const std::string_view m = l.message;
  LogRun& run = c.run();
  if (const size_t props = m.find("_CudaDeviceProperties(name='");
      props != std::string_view::npos) {
    const size_t start = props + 28;
    run.gpu_name = std::string(m.substr(start, m.find('\'', start) - start));
    run.gpu_name_line = l.number;
    if (std::optional<PrintedNumber> mb = number_after(m, "total_memory=")) {
      // torch prints total_memory // 2**20 and calls it "MB".
      PrintedNumber gib = *mb;
      gib.value /= 1024.0;
      gib.decimals = 2;
      c.restate(Quantity::kTotalMemory, gib, l);
    }
    return true;
  }
  if (starts_with(m, "GPU ") && contains(m, ": NVIDIA ")) {
    run.gpu_name = std::string(m.substr(m.find("NVIDIA ")));
    run.gpu_name_line = l.number;
    return true;
  }
  if (starts_with(m, "|") && contains(m, " NVIDIA ")) {
    const size_t start = m.find("NVIDIA ");
    const size_t end = m.find("  ", start);
    run.gpu_name = std::string(m.substr(start, end == std::string_view::npos ? end : end - start));
    run.gpu_name_line = l.number;
    return true;
  }
  // nvidia-smi's "|  14134MiB /  16303MiB |" or a hand-made table "| `21351 MiB` | `24564
  // MiB` |": the second size of the row is memory.total.
  if (starts_with(m, "|")) {
    std::vector<double> sizes;
    for (size_t at = m.find("MiB"); at != std::string_view::npos; at = m.find("MiB", at + 3)) {
      size_t start = at;
      while (start > 0 && (m[start - 1] == ' ' || (m[start - 1] >= '0' && m[start - 1] <= '9'))) {
        --start;
      }
      if (std::optional<PrintedNumber> n = number_at(m.substr(start, at - start))) {
        n->begin += start;
        n->value /= 1024.0;  // MiB, bounded as GiB
        if (!c.within_bounds("an nvidia-smi memory size", FigureUnit::kGiB, false, *n, l)) {
          return true;
        }
        sizes.push_back(n->value * 1024.0);
      }
    }
    if (sizes.size() >= 2) {
      run.gpu_memory_total_mib = sizes[1];
      return true;
    }
  }
  return false;
}

bool read_line(LogEngine engine, const LogLine& l, RunCollector& c) {
  if (may_start_command(l.message)) {
    if (std::optional<LaunchCommand> cmd = parse_launch_command(l); cmd && cmd->engine == engine) {
      c.start_of_run();
      if (cmd->model) {
        c.run().model = cmd->model;
        c.run().model_line = l.number;
      }
      for (LoggedFlag& f : cmd->flags) c.flag(std::move(f));
      for (const std::string& u : cmd->unknown_flags) {
        c.run().notes.push_back("line " + std::to_string(l.number) + ": " + u +
                                " is not a flag gpumem models; ignored");
      }
      return true;
    }
  }
  if (read_gpu_line(l, c)) return true;
  return engine == LogEngine::kSglang ? read_sglang_line(l, c) : read_vllm_line(l, c);
}

struct Reading {
  StartupLog log;
  int recognised = 0;   // lines the engine's reader knows, refused ones included
  std::string refusal;  // "line:col: message"; "" when every figure was taken
};

Reading read_as(LogEngine engine, const std::vector<LogLine>& lines) {
  Reading r;
  r.log.engine = engine;
  r.log.lines = static_cast<int>(lines.size());
  RunCollector c(r.log);
  for (const LogLine& l : lines) {
    if (!read_line(engine, l, c)) continue;
    c.recognised(l);
    ++r.recognised;
  }
  c.finish();
  r.refusal = c.refusal();
  return r;
}

}  // namespace

Result<StartupLog> read_startup_log(std::string_view text, std::optional<LogEngine> engine,
                                    const std::string& file) {
  const std::vector<LogLine> lines = join_continuations(split_log_lines(text));
  Reading reading;
  if (engine) {
    reading = read_as(*engine, lines);
  } else {
    Reading sglang = read_as(LogEngine::kSglang, lines);
    Reading vllm = read_as(LogEngine::kVllm, lines);
    reading = vllm.recognised > sglang.recognised ? std::move(vllm) : std::move(sglang);
  }
  if (!reading.refusal.empty())
    return invalid_input(file + (file.empty() ? "" : ":") + reading.refusal);
  StartupLog& log = reading.log;
  bool usable = false;
  for (const LogRun& r : log.runs)
    usable = usable || !r.observations.empty() || !r.problems.empty();
  if (!usable) {
    const std::string which = engine ? std::string(log_engine_name(*engine)) + " " : "";
    return invalid_input(
        file + (file.empty() ? "" : ": ") + "nothing usable: no " +
        (which.empty() ? std::string("SGLang or vLLM ") : which) +
        "start-up memory line found (gpumem explain reads lines such as 'Load weight end', 'KV "
        "Cache is allocated', 'Model loading took', 'Available KV cache memory', 'GPU KV cache "
        "size')");
  }
  // Runs holding only flags (a command with no start-up after it) explain nothing.
  std::erase_if(log.runs,
                [](const LogRun& r) { return r.observations.empty() && r.problems.empty(); });
  return std::move(log);
}

}  // namespace gpumem
