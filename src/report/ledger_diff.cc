#include "report/ledger_diff.h"

#include <fmt/format.h>

#include <map>

#include "report/ledger_view.h"
#include "report/render.h"

namespace gpumem {
namespace {

std::string signed_mib(Bytes b) { return (b.value() > 0 ? "+" : "") + format_mib(b); }

void diff_facts(const std::string& gpus, const std::vector<Fact>& before,
                const std::vector<Fact>& after, std::vector<LedgerChange>& out) {
  // Facts are matched by id and compared by value: a label is wording, not a prediction.
  std::map<std::string, const Fact*> old_facts;
  for (const Fact& f : before) old_facts[f.id] = &f;
  for (const Fact& f : after) {
    auto it = old_facts.find(f.id);
    if (it == old_facts.end()) {
      out.push_back({gpus, "fact", f.label, "(absent)", format_fact(f), ""});
      continue;
    }
    if (it->second->value != f.value) {
      std::string delta;
      if (std::holds_alternative<Bytes>(f.value) &&
          std::holds_alternative<Bytes>(it->second->value)) {
        delta = signed_mib(std::get<Bytes>(f.value) - std::get<Bytes>(it->second->value));
      } else if (std::holds_alternative<std::int64_t>(f.value) &&
                 std::holds_alternative<std::int64_t>(it->second->value)) {
        const std::int64_t d =
            std::get<std::int64_t>(f.value) - std::get<std::int64_t>(it->second->value);
        delta = (d > 0 ? "+" : "") + std::to_string(d);
      }
      out.push_back({gpus, "fact", f.label, format_fact(*it->second), format_fact(f), delta});
    }
    old_facts.erase(it);
  }
  for (const auto& [id, f] : old_facts) {
    out.push_back({gpus, "fact", f->label, format_fact(*f), "(absent)", ""});
  }
}

void diff_bytes(const std::string& gpus, const std::string& step, const std::string& what,
                Bytes before, Bytes after, std::vector<LedgerChange>& out) {
  if (before == after) return;
  out.push_back(
      {gpus, step, what, format_mib(before), format_mib(after), signed_mib(after - before)});
}

}  // namespace

std::vector<LedgerChange> diff_ledgers(const Ledger& before, const Ledger& after) {
  std::vector<LedgerChange> out;
  if (before.fits() != after.fits()) {
    out.push_back(
        {"", "result", "fits", before.fits() ? "yes" : "no", after.fits() ? "yes" : "no", ""});
  }
  if (before.engine != after.engine)
    out.push_back({"", "result", "engine", before.engine, after.engine, ""});
  if (before.fit_advice != after.fit_advice) {
    const auto text = [](const std::optional<FitAdviceRecord>& a) {
      if (!a) return std::string("(none)");
      std::string t;
      for (const FitOption& o : a->options) t += (t.empty() ? "" : ", ") + o.flag + " " + o.value;
      for (const std::string& f : a->none_found) t += (t.empty() ? "no " : ", no ") + f;
      return t;
    };
    out.push_back(
        {"", "result", "fit advice", text(before.fit_advice), text(after.fit_advice), ""});
  }
  diff_facts("", before.facts, after.facts, out);
  if (before.gpus.size() != after.gpus.size()) {
    out.push_back({"", "result", "GPUs", std::to_string(before.gpus.size()),
                   std::to_string(after.gpus.size()), ""});
    return out;
  }
  // Compare GPU by GPU, but report groups of GPUs that changed the same way together.
  for (const GpuGroup& group : group_identical_gpus(after)) {
    const GpuLedger& a = *group.members.front();
    const GpuLedger& b = before.gpus[static_cast<size_t>(&a - after.gpus.data())];
    std::vector<LedgerChange> changes;
    std::map<std::string, const LedgerStep*> old_steps;
    for (const LedgerStep& s : b.steps) old_steps[s.name] = &s;
    for (const LedgerStep& s : a.steps) {
      auto it = old_steps.find(s.name);
      if (it == old_steps.end()) {
        changes.push_back({group.label, s.name, "step", "(absent)", signed_mib(s.delta()), ""});
        continue;
      }
      const LedgerStep& o = *it->second;
      if (o.outcome != s.outcome) {
        changes.push_back({group.label, s.name, "outcome", std::string(outcome_name(o.outcome)),
                           std::string(outcome_name(s.outcome)), ""});
      }
      if (o.log_lines != s.log_lines) {
        changes.push_back({group.label, s.name, "engine log lines",
                           std::to_string(o.log_lines.size()) + " lines",
                           std::to_string(s.log_lines.size()) + " lines", "text changed"});
      }
      diff_bytes(group.label, s.name, "change", o.delta(), s.delta(), changes);
      diff_bytes(group.label, s.name, "free after", o.free_after, s.free_after, changes);
      diff_bytes(group.label, s.name, "peak", o.peak_used, s.peak_used, changes);
      old_steps.erase(it);
    }
    for (const auto& [name, s] : old_steps) {
      changes.push_back({group.label, name, "step", signed_mib(s->delta()), "(absent)", ""});
    }
    diff_facts(group.label, b.facts, a.facts, changes);
    // Members of the group must have changed identically; otherwise list each one.
    bool same_before = true;
    for (const GpuLedger* m : group.members) {
      const GpuLedger& mb = before.gpus[static_cast<size_t>(m - after.gpus.data())];
      same_before = same_before && mb.steps.size() == b.steps.size();
      for (size_t i = 0; same_before && i < mb.steps.size(); ++i) {
        same_before = mb.steps[i].used_after == b.steps[i].used_after &&
                      mb.steps[i].outcome == b.steps[i].outcome;
      }
    }
    if (!same_before) {
      for (LedgerChange& c : changes) c.gpus += " (their previous ledgers differed)";
    }
    out.insert(out.end(), changes.begin(), changes.end());
  }
  return out;
}

std::string render_diff(const std::string& scenario, const std::vector<LedgerChange>& changes) {
  std::string out = fmt::format("## {}: {} change{}\n\n", scenario, changes.size(),
                                changes.size() == 1 ? "" : "s");
  if (changes.empty()) return out;
  out +=
      "| GPUs | step | what | before | after | delta |\n| --- | --- | --- | ---: | ---: | ---: |\n";
  for (const LedgerChange& c : changes) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.gpus.empty() ? "all" : c.gpus,
                       c.where, c.what, c.before, c.after, c.delta);
  }
  return out + "\n";
}

}  // namespace gpumem
