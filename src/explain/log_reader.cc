#include "explain/log_reader.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "catalog/hf_cache.h"
#include "explain/command_line.h"
#include "explain/log_line.h"
#include "explain/platform_clue.h"
#include "explain/python_call.h"
#include "explain/run_collector.h"
#include "explain/vllm_source_lines.h"

namespace gpumem {
namespace {

bool may_start_command(std::string_view m) {
  // After a root shell's "# " prompt a command starts the line ("# vllm serve ..."); a
  // comment that mentions one ("# launched with sglang serve ...") runs nothing.
  m.remove_prefix(std::min(m.find_first_not_of(" \t"), m.size()));
  if (m.starts_with('#')) {
    m.remove_prefix(std::min(m.find_first_not_of("# \t"), m.size()));
    const std::string_view word = m.substr(0, m.find(' '));
    const bool assignment = word.find('=') != std::string_view::npos && !word.starts_with('-');
    if (!assignment && word != "vllm" && word != "sglang" && word != "docker" &&
        !word.starts_with("python")) {
      return false;
    }
  }
  return contains(m, "vllm serve") || contains(m, "vllm.entrypoints") ||
         contains(m, "sglang.launch_server") || contains(m, "sglang serve") ||
         contains(m, "docker run");
}

// A line of the post rather than of the engine: a shell comment or a Markdown heading ("# ",
// "## Error log") without an engine's frame, which may quote an error ("# CUDA out of memory
// on two GPUs") that never happened in this log. A root prompt's command ("# vllm serve") is
// not one, nor vLLM V0's own "# GPU blocks: N, # CPU blocks: M" with its frame cut off.
bool is_comment(const LogLine& l) {
  std::string_view m = l.message;
  m.remove_prefix(std::min(m.find_first_not_of(" \t"), m.size()));
  return !l.framed && m.starts_with('#') && !m.starts_with("# GPU blocks:") &&
         !may_start_command(m);
}

// A line that goes on a command whose line ended without a backslash: an option ("--tp 2")
// alone at its start, as a docker-compose `command: >` block or a post that dropped the
// backslashes writes one option a line. "---" (a rule) is not one.
bool continues_without_backslash(const LogLine& l) {
  std::string_view m = l.message;
  m.remove_prefix(std::min(m.find_first_not_of(" \t"), m.size()));
  return !l.framed && m.size() > 2 && m.starts_with("--") &&
         std::isalpha(static_cast<unsigned char>(m[2]));
}

// Brackets opened and not closed in `m`, quoted text aside.
int open_brackets(std::string_view m) {
  int depth = 0;
  char quote = 0;
  for (const char ch : m) {
    if (quote != 0) {
      if (ch == quote) quote = 0;
    } else if (ch == '\'' || ch == '"') {
      quote = ch;
    } else if (ch == '(' || ch == '[' || ch == '{') {
      ++depth;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      --depth;
    }
  }
  return depth;
}

// The lines after `l` up to the one that closes its LLM( call, at most this many.
constexpr int kMaxCallLines = 64;

void append_line(LogLine& l, const LogLine& next) {
  l.message += " ";
  l.continuations.push_back({l.message.size(), {next.number, next.column}});
  l.message += next.message;
}

// A launch command continued with a trailing backslash spans several lines, and so does one
// whose options follow one a line without backslashes, and a Python LLM( call written one
// argument a line: joined here.
std::vector<LogLine> join_continuations(std::vector<LogLine> lines) {
  std::vector<LogLine> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    LogLine l = std::move(lines[i]);
    if (!l.framed && opens_llm_call(l.message)) {
      int depth = open_brackets(l.message);
      for (int n = 0;
           depth > 0 && n < kMaxCallLines && i + 1 < lines.size() && !lines[i + 1].framed; ++n) {
        const LogLine& next = lines[++i];
        append_line(l, next);
        depth += open_brackets(next.message);
      }
    } else if (may_start_command(l.message)) {
      // A log line after a trailing backslash is not part of the command (a pasted command
      // often keeps its last backslash).
      while (i + 1 < lines.size() && !lines[i + 1].framed) {
        const bool backslash = !l.message.empty() && l.message.back() == '\\';
        if (!backslash && !continues_without_backslash(lines[i + 1])) break;
        if (backslash) l.message.pop_back();
        append_line(l, lines[++i]);
      }
    }
    out.push_back(std::move(l));
  }
  return out;
}

// The first name a line states; a whole name replaces the end of one.
void set_gpu_name(LogRun& run, std::string_view name, int line, bool partial) {
  if (run.gpu_name && (partial || !run.gpu_name_partial)) return;
  run.gpu_name = std::string(name);
  run.gpu_name_line = line;
  run.gpu_name_partial = partial;
}

// The device name in a fused-MoE kernel config file SGLang or vLLM looks for
// ("E=128,N=384,device_name=NVIDIA_H20.json", "...,device_name=NVIDIA_H200,dtype=fp8_w8a8,
// block_shape=[128, 128].json", a line that may be cut before ".json"), or, of a line cut at
// its start, the end of it ("A_A800-SXM4-80GB.json"): the GPU's name with '_' for ' '
// (fused_moe.py get_config_file_name).
bool read_config_device_name(const LogLine& l, LogRun& run) {
  const std::string_view m = l.message;
  const size_t key = m.find("device_name=");
  const bool whole = key != std::string_view::npos;
  const size_t json = whole ? std::min(m.find(',', key), m.find(".json", key)) : m.find(".json");
  if (json == std::string_view::npos) return false;
  const size_t start = whole ? key + 12 : m.rfind('_', json);
  if (start == std::string_view::npos || start + (whole ? 0 : 1) >= json) return false;
  const std::string_view name = m.substr(whole ? start : start + 1, json - start - (whole ? 0 : 1));
  if (name.find_first_of(" /,=") != std::string_view::npos) return false;
  set_gpu_name(run, name, l.number, !whole);
  return whole;
}

// The GPU's name and size where a pasted nvidia-smi table, collect_env or a torch device
// print shows them.
bool read_gpu_line(const LogLine& l, RunCollector& c) {
  const std::string_view m = l.message;
  LogRun& run = c.run();
  if (read_config_device_name(l, run)) return true;
  if (const size_t props = m.find("_CudaDeviceProperties(name='");
      props != std::string_view::npos) {
    const size_t start = props + 28;
    set_gpu_name(run, m.substr(start, m.find('\'', start) - start), l.number, false);
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
    set_gpu_name(run, m.substr(m.find("NVIDIA ")), l.number, false);
    return true;
  }
  if (starts_with(m, "|") && contains(m, " NVIDIA ")) {
    const size_t start = m.find("NVIDIA ");
    const size_t end = m.find("  ", start);
    set_gpu_name(run, m.substr(start, end == std::string_view::npos ? end : end - start), l.number,
                 false);
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

// The exception a Python traceback ends with ("RuntimeError: ...", "torch.AcceleratorError:
// ..."), bare or in an ERROR line: the start-up stopped there. A line of another level (a
// WARNING quoting an ImportError it recovered from) is no failure.
bool read_exception_line(const LogLine& l, RunCollector& c) {
  if (!l.level.empty() && l.level != "ERROR" && l.level != "CRITICAL") return false;
  const std::string_view m = l.message;
  const size_t colon = m.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = m.substr(0, colon);
  const bool dotted_identifier = std::all_of(name.begin(), name.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
  });
  if (!dotted_identifier || !(name.ends_with("Error") || name.ends_with("Exception"))) {
    return false;
  }
  if (c.repeated_failure(l)) return true;
  c.problem(is_out_of_memory(m) ? ProblemKind::kOutOfMemory : ProblemKind::kOtherError, l);
  c.run().problems.back().exception = true;
  return true;
}

// What a launch command or an LLM( call states: a new start-up, its model, flags and notes.
void take_command(LaunchCommand& cmd, const LogLine& l, RunCollector& c) {
  c.launch_command(l.number);
  if (cmd.offline) c.run().offline_call_line = l.number;
  if (cmd.model) {
    c.run().model = cmd.model;
    c.run().model_line = l.number;
  }
  for (LoggedFlag& f : cmd.flags) c.flag(std::move(f));
  for (const std::string& u : cmd.unknown_flags) {
    c.run().notes.push_back("line " + std::to_string(l.number) + ": " + u +
                            " is not a flag gpumem models; ignored");
  }
  for (std::string& n : cmd.notes) c.run().notes.push_back(std::move(n));
  // A version line the engine prints later replaces what the tag says.
  if (cmd.image_release && !c.run().version) {
    c.run().version = cmd.image_release;
    c.run().version_line = l.number;
    c.run().version_from_image_tag = true;
  }
}

bool read_line(LogEngine engine, const LogLine& l, RunCollector& c) {
  if (engine == LogEngine::kVllm && !l.framed && opens_llm_call(l.message)) {
    if (std::optional<LaunchCommand> cmd = parse_llm_call(l)) {
      take_command(*cmd, l, c);
      return true;
    }
  }
  if (may_start_command(l.message)) {
    if (std::optional<LaunchCommand> cmd = parse_launch_command(l); cmd && cmd->engine == engine) {
      take_command(*cmd, l, c);
      return true;
    }
  }
  if (read_gpu_line(l, c)) return true;
  if (engine == LogEngine::kSglang) return read_sglang_line(l, c);
  note_model_runner(l, c);
  if (!read_vllm_line(l, c)) return false;
  if (const std::optional<SourceLineBounds> b = vllm_source_line_bounds(l.source, l.message)) {
    c.source_line_clue(b->from, b->before, b->why, l.number, b->newest_seen);
  }
  return true;
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
  RunCollector c(r.log, lines);
  for (const LogLine& l : lines) {
    c.line_seen(l);
    if (is_comment(l)) continue;
    if (!c.run().platform && !l.message.starts_with('#')) {
      if (std::optional<std::string> p = non_cuda_platform(l.message)) {
        c.run().platform = std::move(p);
        c.run().platform_line = l.number;
      }
    }
    if (!c.run().model_in_cache_path) {
      if (std::optional<std::string> id = repo_id_in_cache_path(l.message)) {
        c.run().model_in_cache_path = std::move(id);
        c.run().model_in_cache_path_line = l.number;
      }
    }
    // A traceback's exception belongs to the start-up but says nothing of which engine wrote it.
    const bool engine_line = read_line(engine, l, c);
    if (!engine_line && !read_exception_line(l, c)) continue;
    c.recognised(l);
    if (engine_line) ++r.recognised;
  }
  c.finish();
  std::stable_sort(r.log.runs.begin(), r.log.runs.end(),
                   [](const LogRun& a, const LogRun& b) { return a.first_line < b.first_line; });
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
    // A tie (a log of one out-of-memory line, which both read) goes to the engine whose
    // frames the lines carry, or whose process names they print where a paste lost the frame
    // ("VllmWorker rank=1 pid=254) torch.OutOfMemoryError: ...").
    long frames = 0;
    for (const LogLine& l : lines) {
      frames += l.frame == FrameKind::kVllm ? 1 : l.frame == FrameKind::kSglang ? -1 : 0;
      if (l.frame == FrameKind::kNone &&
          (contains(l.message, "VllmWorker") || contains(l.message, "EngineCore"))) {
        ++frames;
      }
    }
    const bool vllm_wins =
        vllm.recognised > sglang.recognised || (vllm.recognised == sglang.recognised && frames > 0);
    reading = vllm_wins ? std::move(vllm) : std::move(sglang);
  }
  if (!reading.refusal.empty())
    return invalid_input(file + (file.empty() ? "" : ":") + reading.refusal);
  StartupLog& log = reading.log;
  // A log that prints no memory line but names its model (a launch command, an engine's
  // config dump) is still usable: replayed from scratch, it answers whether that launch fits.
  // With figures elsewhere in the log, such a run is the flags of another start-up.
  bool figures = false;
  bool named = false;
  for (const LogRun& r : log.runs) {
    figures = figures || !r.observations.empty() || !r.problems.empty();
    named = named || r.model.has_value();
  }
  if (!figures && !named) {
    const std::string which = engine ? std::string(log_engine_name(*engine)) + " " : "";
    return invalid_input(
        file + (file.empty() ? "" : ": ") + "nothing usable: no " +
        (which.empty() ? std::string("SGLang or vLLM ") : which) +
        "start-up memory line found (gpumem explain reads lines such as 'Load weight end', 'KV "
        "Cache is allocated', 'Model loading took', 'Available KV cache memory', 'GPU KV cache "
        "size')");
  }
  // A configuration pasted after the lines it configured (a post's "engine config" section
  // below its log): the start-up before it, which states no flags and no model of its own
  // (values its memory lines print, such as the max model length, are not stated flags),
  // takes them.
  const auto stated = [](const LoggedFlag& f) { return f.source != "printed"; };
  for (size_t i = 1; i < log.runs.size(); ++i) {
    LogRun& config = log.runs[i];
    LogRun& before = log.runs[i - 1];
    if (!config.observations.empty() || !config.problems.empty() ||
        std::any_of(before.flags.begin(), before.flags.end(), stated) || before.model ||
        before.observations.empty()) {
      continue;
    }
    before.notes.push_back("lines " + std::to_string(config.first_line) + "-" +
                           std::to_string(config.last_line) +
                           ": the arguments printed after this start-up's figures are taken as "
                           "its own");
    for (LoggedFlag& f : before.flags) {
      if (config.flag(f.flag) == nullptr) config.flags.push_back(std::move(f));
    }
    before.flags = std::move(config.flags);
    before.model = std::move(config.model);
    before.model_line = config.model_line;
    if (!before.version && config.version) {
      before.version = std::move(config.version);
      before.version_from_image_tag = config.version_from_image_tag;
      before.version_line = config.version_line;
    }
    for (std::string& n : config.notes) before.notes.push_back(std::move(n));
    config.flags.clear();
  }
  // Runs holding only flags (a command with no start-up after it) explain nothing, unless the
  // whole log is such commands.
  std::erase_if(log.runs, [&](const LogRun& r) {
    return r.observations.empty() && r.problems.empty() && (figures || !r.model);
  });
  return std::move(log);
}

}  // namespace gpumem
