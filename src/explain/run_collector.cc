#include "explain/run_collector.h"

#include "explain/figure_bounds.h"

namespace gpumem {
namespace {

std::string_view printed_text(const LogLine& line, const PrintedNumber& n) {
  if (n.begin >= line.message.size()) return {};
  return std::string_view(line.message).substr(n.begin, n.length);
}

}  // namespace

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

void RunCollector::push(Quantity q, const PrintedNumber& n, const LogLine& line) {
  Observation o;
  o.quantity = q;
  o.value = n.value;
  o.decimals = n.decimals < 0 ? kExact : n.decimals;
  o.line = line.number;
  o.process = line.process;
  o.rank = line.tp;
  current_.observations.push_back(std::move(o));
  seen_.insert({q, line.process});
}

bool RunCollector::add(Quantity q, const PrintedNumber& n, const LogLine& line) {
  if (!taken(q, n, line)) return false;
  if (printed(q, line.process)) finish();
  push(q, n, line);
  return true;
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

void RunCollector::printed_count_flag(const LogLine& line, const PrintedNumber& n,
                                      std::string name) {
  if (!within_bounds(name, FigureUnit::kCount, false, n, line)) return;
  printed_flag(line, std::move(name), std::to_string(static_cast<long long>(n.value)), n.begin);
}

void RunCollector::flag(LoggedFlag f) {
  for (LoggedFlag& held : current_.flags) {
    if (held.flag != f.flag) continue;
    if (held.values != f.values) {
      current_.notes.push_back(
          "line " + std::to_string(f.line) + " states " + f.flag + " " +
          (f.values.empty() ? "" : f.values.front()) + ", line " + std::to_string(held.line) + " " +
          (held.values.empty() ? "" : held.values.front()) + "; the first is used");
    }
    return;
  }
  current_.flags.push_back(std::move(f));
}

void RunCollector::problem(ProblemKind kind, const LogLine& line) {
  LoggedProblem p;
  p.kind = kind;
  p.message = line.message;
  p.line = line.number;
  p.process = line.process;
  if (kind == ProblemKind::kOutOfMemory) {
    // torch: "Tried to allocate 448.00 MiB. GPU 0 has a total capacity of 23.57 GiB of
    // which 10.00 MiB is free."
    auto gib = [&](std::string_view key, std::string_view what) -> std::optional<double> {
      const std::optional<PrintedNumber> n = number_after(line.message, key);
      if (!n) return std::nullopt;
      const std::string_view u = std::string_view(line.message).substr(n->begin + n->length);
      const size_t unit_at = u.find_first_not_of(' ');
      const std::string_view unit = unit_at == std::string_view::npos ? "" : u.substr(unit_at, 3);
      const double scale = unit == "GiB"   ? 1.0
                           : unit == "MiB" ? 1.0 / 1024
                           : unit == "KiB" ? 1.0 / (1024.0 * 1024.0)
                                           : 0.0;
      if (scale == 0.0) return std::nullopt;
      PrintedNumber in_gib = *n;
      in_gib.value *= scale;
      if (!within_bounds(what, FigureUnit::kGiB, false, in_gib, line)) {
        return std::nullopt;
      }
      return in_gib.value;
    };
    p.requested_gib = gib("Tried to allocate ", "the size the out-of-memory error asked for");
    p.free_gib = gib("of which ", "the free memory the out-of-memory error states");
  }
  current_.problems.push_back(std::move(p));
}

void RunCollector::phase(std::string name, int line) {
  current_.phases.push_back({std::move(name), line});
}

void RunCollector::clue(std::string from, std::string before, std::string why, int line) {
  for (const VersionClue& c : current_.version_clues) {
    if (c.from == from && c.before == before && c.why == why) return;
  }
  current_.version_clues.push_back({std::move(from), std::move(before), std::move(why), line});
}

void RunCollector::recognised(const LogLine& line) {
  if (current_.recognised_lines == 0) current_.first_line = line.number;
  current_.last_line = line.number;
  ++current_.recognised_lines;
}

void RunCollector::finish() {
  if (!current_.empty()) log_.runs.push_back(std::move(current_));
  current_ = LogRun{};
  seen_.clear();
}

}  // namespace gpumem
