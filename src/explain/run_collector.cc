#include "explain/run_collector.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>

#include "engine/sglang/older_flags.h"
#include "engine/vllm/added_flags.h"
#include "engine/vllm/older_flags.h"
#include "explain/figure_bounds.h"
#include "explain/version_choice.h"

namespace gpumem {
namespace {

std::string_view printed_text(const LogLine& line, const PrintedNumber& n) {
  if (n.begin >= line.message.size()) return {};
  return std::string_view(line.message).substr(n.begin, n.length);
}

// "EngineCore_DP0" of "EngineCore_DP0 pid=3021" and the pid, when the process is one a
// launch runs once: vLLM's engine core or API server, or a worker that names its rank.
// Unnamed workers ("VllmWorkerProcess pid=6494") are several per launch.
std::optional<std::pair<std::string, std::string>> once_per_launch(const std::string& process) {
  const size_t pid = process.find("pid=");
  if (pid == std::string::npos) return std::nullopt;
  std::string role = process.substr(0, pid);
  while (!role.empty() && (role.back() == ' ' || role.back() == ',')) role.pop_back();
  const bool once = role.starts_with("EngineCore") || role.starts_with("APIServer") ||
                    role.find("rank=") != std::string::npos || role.find("TP") != std::string::npos;
  if (!once) return std::nullopt;
  return std::pair{role, process.substr(pid + 4)};
}

// Seconds of a frame's time ("2025-04-29 16:19:34", or vLLM's "04-29 16:19:34"), counting
// every month as 31 days: enough to measure minutes between two lines of one log.
std::optional<long long> seconds_of(const std::string& time) {
  int y = 0;
  int mo = 0;
  int d = 0;
  int h = 0;
  int mi = 0;
  int sec = 0;
  if (std::sscanf(time.c_str(), "%4d-%2d-%2d %2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6 &&
      std::sscanf(time.c_str(), "%2d-%2d %2d:%2d:%2d", &mo, &d, &h, &mi, &sec) != 5) {
    return std::nullopt;
  }
  return ((((static_cast<long long>(y) * 12 + mo) * 31 + d) * 24 + h) * 60 + mi) * 60 + sec;
}

// The ranks of one start-up print a phase's line within seconds of each other; two minutes
// apart, the same line of another rank belongs to another launch.
constexpr long long kSamePhaseSeconds = 120;
// A draft follows its target's KV pool within minutes (its load and pool); half an hour
// later, a weight or pool line is another launch's.
constexpr long long kAnotherLaunchSeconds = 1800;

// vLLM V0's multiprocessing workers: a process of their own per rank but the driver's, named
// by its pid, not its rank (vllm v0.6 executor/multiproc_worker_utils.py). Ray's workers
// ("RayWorkerWrapper pid=5, ip=10.0.0.2", one per rank on any node; vllm
// executor/ray_distributed_executor.py): V0 keeps rank 0 in the driver, V1's engine core
// ("(EngineCore pid=8) (RayWorkerWrapper ...)") runs every rank in a worker.
// Workers are a lower bound on the GPUs; past 64 a hostile log of a million pids stays a
// bounded search.
constexpr size_t kMostUnrankedWorkers = 64;

bool unranked_worker(const LogLine& line) {
  return !line.tp && (line.process.starts_with("VllmWorkerProcess pid=") ||
                      line.process.starts_with("RayWorkerWrapper pid="));
}

bool v1_ray_worker(const LogLine& line) {
  return line.process.starts_with("RayWorkerWrapper pid=") &&
         line.outer_process.starts_with("EngineCore");
}

}  // namespace

bool is_out_of_memory(std::string_view m) {
  return contains(m, "CUDA out of memory") || contains(m, "OutOfMemoryError") ||
         contains(m, "CUDA error: out of memory");
}

void RunCollector::line_seen(const LogLine& line) {
  switch_runs(line);
  if (unranked_worker(line) && current_.unranked_workers.size() < kMostUnrankedWorkers &&
      std::find(current_.unranked_workers.begin(), current_.unranked_workers.end(), line.process) ==
          current_.unranked_workers.end()) {
    current_.unranked_workers.push_back(line.process);
  }
  if (unranked_worker(line)) {
    current_.cluster_repeats = std::min(std::max(current_.cluster_repeats, line.cluster_repeats),
                                        static_cast<int>(kMostUnrankedWorkers));
    if (v1_ray_worker(line)) current_.workers_hold_every_rank = true;
  }
  if (line.tp || line.pp || line.dp || line.ep) {
    current_.rank_prefixes.insert(
        {line.tp, line.pp, line.dp, line.ep, line.process.find("Worker") != std::string::npos});
  }
}

void RunCollector::switch_runs(const LogLine& line) {
  // A process's clock does not go back: an earlier time is another launch pasted after it.
  // (SGLang's full dates and vLLM's month-day times are compared only among themselves: a
  // vLLM kernel's INFO line inside an SGLang log prints the second form.)
  if (!line.time.empty()) {
    const std::string key = line.process + "|" + std::to_string(line.time.size());
    const std::string last = last_time_[key];
    if (!last.empty() && line.time < last) finish();
    last_time_[key] = line.time;
  }
  const std::optional<std::pair<std::string, std::string>> who = once_per_launch(line.process);
  if (!who) return;
  const auto [it, inserted] = pid_of_role_.insert(*who);
  if (inserted || it->second == who->second) return;
  finish();
  // A process an earlier start-up ran: its lines continue that start-up (a post that quotes
  // an attempt, then another, then the first one's traceback).
  for (size_t k = finished_pids_.size(); k-- > 0;) {
    const auto at = finished_pids_[k].find(who->first);
    if (at == finished_pids_[k].end() || at->second != who->second) continue;
    current_ = std::move(log_.runs[k]);
    pid_of_role_ = std::move(finished_pids_[k]);
    log_.runs.erase(log_.runs.begin() + static_cast<std::ptrdiff_t>(k));
    finished_pids_.erase(finished_pids_.begin() + static_cast<std::ptrdiff_t>(k));
    for (const Observation& o : current_.observations) seen_.insert({o.quantity, o.process});
    return;
  }
  pid_of_role_.insert(*who);
}

void RunCollector::refuse(const LogLine& line, size_t offset, std::string message) {
  if (!refusal_.empty()) return;
  const LogPosition at = line.position(offset);
  refusal_ = std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + message;
}

bool RunCollector::within_bounds(std::string_view what, FigureUnit unit, bool negative_allowed,
                                 const PrintedNumber& n, const LogLine& line) {
  std::optional<std::string> why =
      figure_out_of_bounds(what, unit, negative_allowed, n, printed_text(line, n));
  if (!why) return true;
  refuse(line, n.begin, *why);
  return false;
}

bool RunCollector::taken(Quantity q, const PrintedNumber& n, const LogLine& line) {
  std::optional<std::string> why = figure_out_of_bounds(q, n, printed_text(line, n));
  if (!why) return true;
  refuse(line, n.begin, *why);
  return false;
}

void RunCollector::start_of_run() {
  if (!current_.observations.empty() || !current_.problems.empty()) {
    finish();
  }
}

void RunCollector::launch_command(int line) {
  start_of_run();
  if (command_line_ != 0 && current_.observations.empty() && current_.problems.empty()) {
    const int earlier = command_line_;
    std::erase_if(current_.flags, [&](const LoggedFlag& f) { return f.line == earlier; });
    if (current_.model_line == earlier) {
      current_.model.reset();
      current_.model_line = 0;
    }
  }
  command_line_ = line;
}

void RunCollector::push(Quantity q, const PrintedNumber& n, const LogLine& line,
                        std::optional<int> rank) {
  Observation o;
  o.quantity = q;
  o.value = n.value;
  o.decimals = n.decimals < 0 ? kExact : n.decimals;
  o.line = line.number;
  o.process = line.process;
  o.rank = rank ? rank : line.tp;
  if (!o.rank && unranked_worker(line)) {
    const auto& workers = current_.unranked_workers;
    const auto at = std::find(workers.begin(), workers.end(), line.process);
    if (at != workers.end()) {
      o.rank = (v1_ray_worker(line) ? 0 : 1) + static_cast<int>(at - workers.begin());
    }
  }
  o.pp = line.pp;
  o.dp = line.dp;
  current_.observations.push_back(std::move(o));
  seen_.insert({q, line.process});
}

bool RunCollector::long_after(Quantity q, const LogLine& line) const {
  const std::optional<long long> now = seconds_of(line.time);
  const auto first = first_time_.find(q);
  return now && first != first_time_.end() && *now - first->second > kAnotherLaunchSeconds;
}

bool RunCollector::prints_before(const LogLine& line, std::string_view start,
                                 std::string_view until) const {
  const auto after = std::upper_bound(lines_.begin(), lines_.end(), line.number,
                                      [](int n, const LogLine& l) { return n < l.number; });
  for (const LogLine& later : std::span(after, lines_.end())) {
    if (later.process != line.process) continue;
    if (later.message.starts_with(start)) return true;
    if (later.message.starts_with(until)) return false;
  }
  return false;
}

bool RunCollector::add(Quantity q, const PrintedNumber& n, const LogLine& line) {
  if (!taken(q, n, line)) return false;
  const std::optional<long long> now = seconds_of(line.time);
  if (printed(q, line.process) ||
      (now && first_time_.count(q) > 0 && *now - first_time_[q] > kSamePhaseSeconds)) {
    finish();
  }
  if (now && first_time_.count(q) == 0) first_time_[q] = *now;
  push(q, n, line);
  return true;
}

bool RunCollector::add_per_worker(Quantity q, const PrintedNumber& n, const LogLine& line) {
  if (!taken(q, n, line)) return false;
  if (!line.tp && printed(q, line.process)) {
    std::vector<const Observation*> before = current_.all(q);
    std::erase_if(before, [&](const Observation* o) { return o->process != line.process; });
    const int decimals = n.decimals < 0 ? kExact : n.decimals;
    if (!before.empty() && before.front()->value == n.value &&
        before.front()->decimals == decimals) {
      for (Observation& o : current_.observations) {
        if (o.quantity == q && o.process == line.process && !o.rank) o.rank = 0;
      }
      push(q, n, line, static_cast<int>(before.size()));
      return true;
    }
  }
  return add(q, n, line);
}

bool RunCollector::restate(Quantity q, const PrintedNumber& n, const LogLine& line) {
  if (!taken(q, n, line)) return false;
  for (Observation& o : current_.observations) {
    if (o.quantity != q || o.process != line.process) continue;
    const int precision = n.decimals < 0 ? 100 : n.decimals;
    const int held = o.decimals == kExact ? 100 : o.decimals;
    if (precision > held) {
      o.value = n.value;
      o.decimals = n.decimals < 0 ? kExact : n.decimals;
      o.line = line.number;
    }
    return true;
  }
  push(q, n, line);
  return true;
}

bool RunCollector::printed(Quantity q, const std::string& process) const {
  return seen_.count({q, process}) > 0;
}

void RunCollector::printed_flag(const LogLine& line, std::string name, std::string value,
                                size_t offset) {
  LoggedFlag f;
  f.flag = std::move(name);
  f.values = {std::move(value)};
  const LogPosition at = line.position(offset);
  f.line = at.line;
  f.column = at.column;
  f.source = "printed";
  flag(std::move(f));
}

void RunCollector::printed_count_flag(const LogLine& line, const PrintedNumber& n, std::string name,
                                      bool with_figures) {
  if (!within_bounds(name, FigureUnit::kCount, false, n, line)) return;
  LoggedFlag f;
  f.flag = std::move(name);
  f.values = {std::to_string(static_cast<long long>(n.value))};
  const LogPosition at = line.position(n.begin);
  f.line = at.line;
  f.column = at.column;
  f.source = "printed";
  f.with_figures = with_figures;
  flag(std::move(f));
}

void RunCollector::flag(LoggedFlag f) {
  for (LoggedFlag& held : current_.flags) {
    if (held.flag != f.flag) continue;
    if (held.values != f.values) {
      // A value the KV cache's figures were computed with outweighs one a configuration line
      // stated: a log pasted from two launches keeps the earlier launch's configuration beside
      // the later one's figures (vllm #14452: max_seq_len=60000 at 14:42, "Maximum
      // concurrency for 50000 tokens per request" at 14:48).
      const bool replace = f.with_figures && !held.with_figures;
      current_.notes.push_back(
          "line " + std::to_string(f.line) + " states " + f.flag + " " +
          (f.values.empty() ? "" : f.values.front()) + ", line " + std::to_string(held.line) + " " +
          (held.values.empty() ? "" : held.values.front()) +
          (replace ? "; line " + std::to_string(f.line) +
                         "'s, which the KV cache's figures were computed with, is used"
                   : "; the first is used"));
      if (replace) held = std::move(f);
    }
    return;
  }
  current_.flags.push_back(std::move(f));
}

bool RunCollector::repeated_failure(const LogLine& line) const {
  return std::any_of(current_.problems.begin(), current_.problems.end(),
                     [&](const LoggedProblem& p) {
                       return p.message == line.message && p.process == line.process;
                     });
}

void RunCollector::problem(ProblemKind kind, const LogLine& line) {
  if (repeated_failure(line)) return;
  LoggedProblem p;
  p.kind = kind;
  p.message = line.message;
  p.line = line.number;
  p.process = line.process;
  p.rank = line.tp;
  p.pp = line.pp;
  p.dp = line.dp;
  if (kind == ProblemKind::kOutOfMemory) read_out_of_memory(line, p);
  current_.problems.push_back(std::move(p));
}

void RunCollector::read_out_of_memory(const LogLine& line, LoggedProblem& p) {
  // torch: "Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 23.57 GiB of which
  // 10.00 MiB is free." A terminal may have wrapped the line with runs of spaces: the words
  // are matched with any spacing between them, the numbers located in the line as printed.
  std::string words;
  std::vector<size_t> origin;  // each byte of `words`: its offset in the message
  for (size_t i = 0; i < line.message.size(); ++i) {
    if (line.message[i] == ' ' && !words.empty() && words.back() == ' ') continue;
    words += line.message[i];
    origin.push_back(i);
  }
  auto gib = [&](std::string_view key, std::string_view what) -> std::optional<double> {
    std::optional<PrintedNumber> n = number_after(words, key);
    if (!n) return std::nullopt;
    const std::string_view u = std::string_view(words).substr(n->begin + n->length);
    const size_t unit_at = u.find_first_not_of(' ');
    const std::string_view unit = unit_at == std::string_view::npos ? "" : u.substr(unit_at, 3);
    const double scale = unit == "GiB"   ? 1.0
                         : unit == "MiB" ? 1.0 / 1024
                         : unit == "KiB" ? 1.0 / (1024.0 * 1024.0)
                                         : 0.0;
    if (scale == 0.0) return std::nullopt;
    n->value *= scale;
    n->begin = origin[n->begin];
    if (!within_bounds(what, FigureUnit::kGiB, false, *n, line)) return std::nullopt;
    return n->value;
  };
  p.requested_gib = gib("Tried to allocate ", "the size the out-of-memory error asked for");
  p.free_gib = gib("of which ", "the free memory the out-of-memory error states");
  // The GPU's CUDA total, as torch's total_memory: it names the GPU where nothing else does.
  if (std::optional<PrintedNumber> total = number_after(words, "has a total capacity of ")) {
    total->begin = origin[total->begin];
    restate(Quantity::kTotalMemory, *total, line);
  }
}

namespace {

// The flags `engine`'s newest modelled release no longer takes (engine/retired_flags.h).
std::span<const RetiredFlag> retired_flags(LogEngine engine) {
  if (engine == LogEngine::kVllm) return vllm::older_release_flags();
  return sglang::older_release_flags();
}

}  // namespace

void RunCollector::phase(std::string name, int line) {
  current_.phases.push_back({std::move(name), line});
}

void RunCollector::clue(std::string from, std::string before, std::string why, int line) {
  for (const VersionClue& c : current_.version_clues) {
    if (c.from == from && c.before == before && c.why == why) return;
  }
  current_.version_clues.push_back(
      {std::move(from), std::move(before), std::move(why), line, false, ""});
}

void RunCollector::source_line_clue(std::string from, std::string before, std::string why, int line,
                                    std::string seen) {
  for (const VersionClue& c : current_.version_clues) {
    if (c.why == why) return;
  }
  current_.version_clues.push_back(
      {std::move(from), std::move(before), std::move(why), line, false, std::move(seen)});
}

void RunCollector::recognised(const LogLine& line) {
  if (current_.recognised_lines == 0) current_.first_line = line.number;
  if (current_.date.empty() && !line.date.empty()) {
    current_.date = line.date;
    current_.date_line = line.number;
  }
  // vLLM's frame time "08-20 18:04:10": month and day first, no year.
  if (current_.month_day.empty() && line.frame == FrameKind::kVllm && line.time.size() == 14 &&
      line.time[2] == '-') {
    current_.month_day = line.time.substr(0, 5);
    current_.month_day_line = line.number;
  }
  current_.last_line = std::max(current_.last_line, line.number);
  ++current_.recognised_lines;
}

void RunCollector::finish() {
  // A flag a later release dropped dates the log before that release (the engines' argparse
  // refuses a flag it does not have, and their argument dumps list only their own fields).
  for (const RetiredFlag& r : retired_flags(log_.engine)) {
    for (const LoggedFlag& f : current_.flags) {
      if (f.flag != r.name) continue;
      clue("", std::string(r.removed_in),
           "'" + f.flag + "' (removed in " + std::string(r.removed_in) + ")", f.line);
      break;
    }
  }
  // ... and a flag a later release added dates it from that release (vLLM only: SGLang's
  // additions are not dated).
  if (log_.engine == LogEngine::kVllm) {
    for (const AddedFlag& a : vllm::newer_release_flags()) {
      for (const LoggedFlag& f : current_.flags) {
        if (f.flag != a.name) continue;
        clue(std::string(a.added_in), "",
             "'" + f.flag + "' (added in " + std::string(a.added_in) +
                 (a.bound_only ? " or later" : "") + ")",
             f.line);
        break;
      }
    }
  }
  if (!current_.date.empty()) {
    if (std::optional<VersionClue> c = date_clue(log_.engine, current_.date, current_.date_line)) {
      current_.version_clues.push_back(std::move(*c));
    }
  } else if (!current_.month_day.empty()) {
    if (std::optional<VersionClue> c = yearless_date_clue(
            log_.engine, current_.month_day, current_.month_day_line, dating_today())) {
      current_.version_clues.push_back(std::move(*c));
    }
  }
  if (!current_.empty()) {
    log_.runs.push_back(std::move(current_));
    finished_pids_.push_back(pid_of_role_);
  }
  current_ = LogRun{};
  command_line_ = 0;
  seen_.clear();
  pid_of_role_.clear();
  last_time_.clear();
  first_time_.clear();
}

}  // namespace gpumem
