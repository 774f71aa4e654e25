#include "explain/explanation_render.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/python_format.h"
#include "runtime/ledger_json.h"

namespace gpumem {

namespace {

// A utilization is a fraction of the GPU, printed by vLLM with 4 decimals and no "x".
bool is_fraction(Quantity q) { return q == Quantity::kEquivalentUtilization; }

std::string figure_text(double v, int decimals, Quantity q) {
  switch (quantity_unit(q)) {
    case FigureUnit::kGiB:
      return decimals == kExact ? python_fixed(v, 4) + " GiB" : python_fixed(v, decimals) + " GiB";
    case FigureUnit::kCount:
      return std::to_string(std::llround(v));
    case FigureUnit::kRatio:
      return is_fraction(q) ? python_fixed(v, 4) : python_fixed(v, 2) + "x";
  }
  return "";
}

std::string error_text(const FigureCheck& c) {
  if (!c.predicted) return "";
  const double d = *c.predicted - c.logged;
  switch (quantity_unit(c.quantity)) {
    case FigureUnit::kGiB:
      return fmt::format("{:+.2f} GiB", d);
    case FigureUnit::kCount:
      return fmt::format("{:+d}", std::llround(d));
    case FigureUnit::kRatio:
      return is_fraction(c.quantity) ? fmt::format("{:+.4f}", d) : fmt::format("{:+.2f}x", d);
  }
  return "";
}

std::string tolerance_text(const FigureCheck& c) {
  if (c.verdict == Verdict::kPinned || c.verdict == Verdict::kNotPredicted) return "";
  switch (quantity_unit(c.quantity)) {
    case FigureUnit::kGiB:
      return fmt::format("{:.3f} GiB", c.tolerance);
    case FigureUnit::kCount:
      return fmt::format("{}", std::llround(std::floor(c.tolerance + 1e-9)));
    case FigureUnit::kRatio:
      return is_fraction(c.quantity) ? fmt::format("{:.4f}", c.tolerance)
                                     : fmt::format("{:.2f}x", c.tolerance);
  }
  return "";
}

void scenario_lines(const RunExplanation& r, std::string& out, const std::string& bullet) {
  const ImpliedScenario& s = r.implied;
  if (!r.scenario_file.empty()) {
    out += bullet + "scenario: " + r.scenario_file + " (given; the log only pins values)\n";
  } else {
    out += bullet + "gpu: " + (s.gpu.value.empty() ? "UNKNOWN" : s.gpu.value) + " x " +
           std::to_string(s.gpus_per_node) +
           (s.nodes > 1 ? " x " + std::to_string(s.nodes) + " nodes" : "") + " (" + s.gpu.note +
           "; " + s.count_note + ")\n";
    out += bullet + "engine: " + std::string(log_engine_name(s.engine)) + " " + s.version.value +
           " (" + s.version.note + ")\n";
    out += bullet + "model: " + (s.model.value.empty() ? "UNKNOWN" : s.model.value) + " (" +
           s.model.note + ")\n";
    std::string flags;
    for (const LoggedFlag& f : s.args) {
      flags += (flags.empty() ? "" : ", ") + f.flag;
      for (const std::string& v : f.values) flags += " " + v;
    }
    out += bullet + "flags: " + (flags.empty() ? "none logged (engine defaults)" : flags) + "\n";
    for (const std::string& l : s.left_out) out += bullet + "left out: " + l + "\n";
  }
  for (const std::string& n : r.run.notes) out += bullet + "note: " + n + "\n";
  std::string pins;
  for (const Pin& p : r.pins) {
    if (r.replayed() && std::find(r.pinned.begin(), r.pinned.end(), p.key) == r.pinned.end()) {
      continue;
    }
    pins += (pins.empty() ? "" : ", ") + p.key + " " + p.size + " (" + p.note + ")";
  }
  out += bullet + (r.replayed() ? "pinned: " : "would pin: ") +
         (r.from_scratch ? "nothing (--from-scratch: gpumem's prediction alone)"
          : pins.empty() ? "nothing"
                         : pins) +
         "\n";
  if (r.ledger) {
    out += bullet + "constants: " + r.ledger->calibration +
           (r.ledger->calibrated ? "" : " (this GPU is not calibrated)") + "\n";
  }
}

}  // namespace

std::string render_explanation_text(const Explanation& e, bool markdown) {
  std::string out;
  const std::string engine(log_engine_title(e.engine));
  out += markdown ? "# gpumem explain: " + e.log_file + "\n\n"
                  : "gpumem explain: " + e.log_file + "\n";
  out += engine + " log, " + std::to_string(e.runs.size()) + " start-up" +
         (e.runs.size() == 1 ? "" : "s") + "\n";
  const std::string bullet = markdown ? "- " : "  ";
  for (size_t i = 0; i < e.runs.size(); ++i) {
    const RunExplanation& r = e.runs[i];
    const std::string title = "Start-up " + std::to_string(i + 1) + " (log lines " +
                              std::to_string(r.first_line) + "-" + std::to_string(r.last_line) +
                              ")";
    out += markdown ? "\n## " + title + "\n\n" : "\n" + title + "\n";
    scenario_lines(r, out, bullet);
    if (r.partial) {
      out += bullet + "partial replay: " + r.partial->label + "\n";
      out += bullet + "no full replay: " + r.not_replayed + "\n";
      out += markdown ? "\nPinned figures are the log's own inputs to the engine's arithmetic; a "
                        "predicted figure is what that arithmetic gives from them.\n"
                      : "\n  Pinned figures are the log's own inputs to the engine's arithmetic; a "
                        "predicted figure is\n  what that arithmetic gives from them.\n";
    } else if (!r.replayed()) {
      out += bullet + "not replayed: " + r.not_replayed + "\n";
    }
    if (r.replayed() && !r.from_scratch) {
      out += markdown ? "\nPinned figures drive the replay with the logged value; their predicted "
                        "column is what gpumem alone would print.\n"
                      : "\n  Pinned figures drive the replay with the logged value; their "
                        "predicted column is what\n  gpumem alone would print.\n";
    }
    if (r.figures.empty()) {
      const std::string what = std::string("The log prints no memory figure") +
                               (r.replayed() ? ": the replay starts from scratch.\n" : ".\n");
      out += markdown ? "\n" + what : "\n  " + what;
    } else {
      out += markdown
                 ? "\n| line | gpu | figure | logged | predicted | error | tolerance | verdict |\n"
                   "|---:|---|---|---:|---:|---:|---:|---|\n"
                 : fmt::format("\n  {:>5}  {:<4}  {:<36}  {:>14}  {:>14}  {:>10}  {:>10}  {}\n",
                               "line", "gpu", "figure", "logged", "predicted", "error", "tolerance",
                               "verdict");
      for (const FigureCheck& c : r.figures) {
        const std::string predicted =
            c.predicted ? figure_text(*c.predicted,
                                      quantity_unit(c.quantity) == FigureUnit::kGiB ? 2 : kExact,
                                      c.quantity)
                        : "-";
        const std::string row[] = {std::to_string(c.line),
                                   std::to_string(c.gpu),
                                   std::string(quantity_name(c.quantity)),
                                   figure_text(c.logged, c.decimals, c.quantity),
                                   predicted,
                                   error_text(c),
                                   tolerance_text(c),
                                   std::string(verdict_name(c.verdict))};
        out += markdown
                   ? fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", row[0], row[1],
                                 row[2], row[3], row[4], row[5], row[6], row[7])
                   : fmt::format("  {:>5}  {:<4}  {:<36}  {:>14}  {:>14}  {:>10}  {:>10}  {}\n",
                                 row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]);
      }
    }
    out += markdown ? "\n### Diagnosis\n\n" : "\n  Diagnosis:\n";
    for (const std::string& d : r.diagnosis) out += bullet + d + "\n";
    if (!r.advice.empty()) {
      out += bullet + "smallest flag change (fit advice):\n";
      size_t start = r.advice.find_first_not_of('\n');
      while (start != std::string::npos && start < r.advice.size()) {
        const size_t end = r.advice.find('\n', start);
        const std::string line =
            r.advice.substr(start, end == std::string::npos ? end : end - start);
        if (!line.empty()) out += (markdown ? "  - " : "    ") + line + "\n";
        start = end == std::string::npos ? end : end + 1;
      }
    }
  }
  return out;
}

std::string render_explanation_json(const Explanation& e) {
  nlohmann::ordered_json j;
  j["schema"] = "gpumem.explanation/1";
  j["log"] = e.log_file;
  j["engine"] = log_engine_name(e.engine);
  j["runs"] = nlohmann::ordered_json::array();
  for (const RunExplanation& r : e.runs) {
    nlohmann::ordered_json jr;
    jr["first_line"] = r.first_line;
    jr["last_line"] = r.last_line;
    jr["scenario"] = r.scenario_file.empty() ? scenario_yaml(r.implied, "") : r.scenario_file;
    jr["pinned"] = r.pinned;
    jr["replayed"] = r.replayed();
    if (!r.replayed()) jr["not_replayed"] = r.not_replayed;
    if (r.partial) jr["partial_replay"] = r.partial->label;
    jr["left_out"] = r.implied.left_out;
    jr["notes"] = r.run.notes;
    jr["figures"] = nlohmann::ordered_json::array();
    for (const FigureCheck& c : r.figures) {
      nlohmann::ordered_json f;
      f["line"] = c.line;
      f["gpu"] = c.gpu;
      f["process"] = c.process;
      f["figure"] = quantity_name(c.quantity);
      f["logged"] = c.logged;
      f["predicted"] =
          c.predicted ? nlohmann::ordered_json(*c.predicted) : nlohmann::ordered_json();
      f["tolerance"] = c.tolerance;
      f["verdict"] = verdict_name(c.verdict);
      jr["figures"].push_back(f);
    }
    jr["diagnosis"] = r.diagnosis;
    jr["fits"] = r.replayed() ? nlohmann::ordered_json(r.ledger->fits())
                 : r.partial  ? nlohmann::ordered_json(r.partial->fits)
                              : nlohmann::ordered_json();
    jr["key_figures"] =
        r.replayed() ? key_figures_to_json(key_figures(*r.ledger)) : nlohmann::ordered_json();
    if (!r.advice.empty()) jr["advice"] = r.advice;
    j["runs"].push_back(jr);
  }
  return j.dump(2) + "\n";
}

}  // namespace gpumem
