#include "report/render.h"

#include <fmt/format.h>

#include "core/python_format.h"
#include "report/ledger_view.h"

namespace gpumem {
namespace {

std::string signed_mib(Bytes b) { return (b.value() > 0 ? "+" : "") + format_mib(b); }

std::string step_outcome_text(const LedgerStep& s) {
  switch (s.outcome) {
    case StepOutcome::kOk:
      return main_category(s);
    case StepOutcome::kOutOfMemory:
      return "OUT OF MEMORY: needs " + format_mib(s.requested) + ", " +
             format_mib(s.free_at_failure) + " free";
    case StepOutcome::kAborted:
      return "aborted: " + s.message;
    case StepOutcome::kError:
      return "error: " + s.message;
  }
  return "";
}

std::string header_constants(const Ledger& l) {
  return l.calibrated ? "calibrated: " + l.calibration
                      : l.calibration + "; NOT calibrated for " + l.gpu_type +
                            ": no probe trace of this GPU yet";
}

}  // namespace

std::string format_fact(const Fact& fact) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return python_float_repr(v);
        } else if constexpr (std::is_same_v<T, Bytes>) {
          return format_bytes(v) + " (" + format_mib(v) + ")";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else {
          std::string out = "[";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
          return out + "]";
        }
      },
      fact.value);
}

std::string render_table(const Ledger& l, const RenderOptions& options) {
  std::string out;
  out += fmt::format("scenario   {}\n", l.scenario);
  out += fmt::format("engine     {}\n", l.engine);
  if (!l.gpus.empty()) {
    out += fmt::format("hardware   {} x {}, {} usable each (CUDA total)\n", l.gpus.size(),
                       l.gpu_type, format_mib(l.gpus.front().total));
  }
  out += fmt::format("constants  {}\n", header_constants(l));
  out += fmt::format("result     {}\n", verdict(l));
  for (const Fact& f : l.facts) out += fmt::format("  {} = {}\n", f.label, format_fact(f));
  for (const GpuGroup& group : group_identical_gpus(l, options.only_gpu)) {
    const GpuLedger& g = *group.members.front();
    out += fmt::format("\n{}\n", group.label);
    out += fmt::format("  {:<20} {:>16} {:>16} {:>16}\n", "step", "change", "free after",
                       "peak in step");
    for (const LedgerStep& s : g.steps) {
      std::string row =
          fmt::format("  {:<20} {:>16} {:>16} {:>16}  {}", s.name, signed_mib(s.delta()),
                      format_mib(s.free_after), format_mib(s.peak_used), step_outcome_text(s));
      while (row.back() == ' ') row.pop_back();
      out += row + "\n";
    }
    if (!g.facts.empty()) out += "  facts\n";
    for (const Fact& f : g.facts) out += fmt::format("    {} = {}\n", f.label, format_fact(f));
    bool any_log = false;
    for (const LedgerStep& s : g.steps) any_log = any_log || !s.log_lines.empty();
    if (any_log) out += "  engine log\n";
    for (const LedgerStep& s : g.steps) {
      for (const std::string& line : s.log_lines) out += "    " + line + "\n";
    }
  }
  return out;
}

std::string render_markdown(const Ledger& l, const RenderOptions& options) {
  std::string out;
  out += fmt::format("# {}\n\n", l.scenario);
  out += fmt::format("- engine: {}\n", l.engine);
  if (!l.gpus.empty()) {
    out += fmt::format("- hardware: {} x {}, {} usable each (CUDA total)\n", l.gpus.size(),
                       l.gpu_type, format_mib(l.gpus.front().total));
  }
  out += fmt::format("- constants: {}\n", header_constants(l));
  out += fmt::format("- result: **{}**\n", verdict(l));
  if (!l.facts.empty()) {
    out += "\n| setting | value |\n| --- | --- |\n";
    for (const Fact& f : l.facts) out += fmt::format("| {} | {} |\n", f.label, format_fact(f));
  }
  for (const GpuGroup& group : group_identical_gpus(l, options.only_gpu)) {
    const GpuLedger& g = *group.members.front();
    out += fmt::format("\n## {}\n\n", group.label);
    out += "| step | change | free after | peak in step | allocated | reserved | note |\n";
    out += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n";
    for (const LedgerStep& s : g.steps) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", s.name, signed_mib(s.delta()),
                         format_mib(s.free_after), format_mib(s.peak_used),
                         format_mib(s.allocated_after), format_mib(s.reserved_after),
                         step_outcome_text(s));
    }
    if (!g.facts.empty()) {
      out += "\n| fact | value |\n| --- | --- |\n";
      for (const Fact& f : g.facts) out += fmt::format("| {} | {} |\n", f.label, format_fact(f));
    }
    bool any_log = false;
    for (const LedgerStep& s : g.steps) any_log = any_log || !s.log_lines.empty();
    if (any_log) {
      out += "\nEngine log lines, as the engine would print them:\n\n```\n";
      for (const LedgerStep& s : g.steps) {
        for (const std::string& line : s.log_lines) out += line + "\n";
      }
      out += "```\n";
    }
  }
  return out;
}

}  // namespace gpumem
