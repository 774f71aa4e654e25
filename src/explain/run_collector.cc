#include "explain/run_collector.h"

namespace gpumem {

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

void RunCollector::add(Quantity q, const PrintedNumber& n, const LogLine& line) {
  if (printed(q, line.process)) finish();
  push(q, n, line);
}

void RunCollector::restate(Quantity q, const PrintedNumber& n, const LogLine& line) {
  for (Observation& o : current_.observations) {
    if (o.quantity != q || o.process != line.process) continue;
    const int precision = n.decimals < 0 ? 100 : n.decimals;
    const int held = o.decimals == kExact ? 100 : o.decimals;
    if (precision > held) {
      o.value = n.value;
      o.decimals = n.decimals < 0 ? kExact : n.decimals;
      o.line = line.number;
    }
    return;
  }
  push(q, n, line);
}

bool RunCollector::printed(Quantity q, const std::string& process) const {
  return seen_.count({q, process}) > 0;
}

void RunCollector::printed_flag(const LogLine& line, std::string name, std::string value) {
  LoggedFlag f;
  f.flag = std::move(name);
  f.values = {std::move(value)};
  f.line = line.number;
  f.source = "printed";
  flag(std::move(f));
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
    auto gib = [&](std::string_view key) -> std::optional<double> {
      const size_t at = line.message.find(key);
      if (at == std::string::npos) return std::nullopt;
      const std::string_view rest = std::string_view(line.message).substr(at + key.size());
      const std::optional<PrintedNumber> n = number_at(rest);
      if (!n) return std::nullopt;
      const size_t unit = rest.find_first_not_of("0123456789.,- ");
      const std::string_view u = unit == std::string_view::npos ? "" : rest.substr(unit, 3);
      if (u == "GiB") return n->value;
      if (u == "MiB") return n->value / 1024.0;
      if (u == "KiB") return n->value / (1024.0 * 1024.0);
      return std::nullopt;
    };
    p.requested_gib = gib("Tried to allocate ");
    p.free_gib = gib("of which ");
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
