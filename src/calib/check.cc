#include "calib/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/fact_ids.h"

namespace gpumem {
namespace {

Bytes abs_bytes(Bytes b) { return b.value() < 0 ? -b : b; }

std::string signed_mib(Bytes b) { return (b.value() > 0 ? "+" : "") + format_mib(b); }

std::optional<double> numeric(const Fact& f) {
  if (const auto* i = std::get_if<std::int64_t>(&f.value)) return static_cast<double>(*i);
  if (const auto* b = std::get_if<Bytes>(&f.value)) return static_cast<double>(b->value());
  if (const auto* d = std::get_if<double>(&f.value)) return *d;
  return std::nullopt;
}

// The engine's numbers whose measured and predicted values must agree closely, each with the
// step whose stated uncertainty (relative to that step's memory) it inherits.
struct KeyFact {
  std::string_view id;
  std::string_view step;
};
constexpr KeyFact kKeyFacts[] = {{fact_id::kFreeBeforeWeights, "weights"},
                                 {fact_id::kFreeAfterWeights, "weights"},
                                 {fact_id::kKvTokens, "kv_cache"}};

}  // namespace

std::string component_of(std::string_view step) {
  static const std::map<std::string_view, std::string_view> kComponents = {
      {"context", "context"},
      {"distributed", "communication"},
      {"free_memory", "other"},
      {"weights", "weights"},
      {"draft_weights", "weights"},
      {"kv_cache", "kv"},
      {"draft_kv_cache", "kv"},
      {"cublas", "workspaces"},
      {"attention_backend", "workspaces"},
      {"cuda_graphs", "graphs"},
      {"draft_cuda_graphs", "graphs"},
      {"ready", "other"}};
  auto it = kComponents.find(step);
  return std::string(it == kComponents.end() ? "other" : it->second);
}

Bytes median_abs(std::vector<Bytes> errors) {
  if (errors.empty()) return bytes(0);
  for (Bytes& e : errors) e = abs_bytes(e);
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  return n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
}

CheckResult check_ledger(const Ledger& predicted, const std::vector<Trace>& traces,
                         const CheckTolerances& tolerances) {
  CheckResult r;
  r.scenario = predicted.scenario;
  r.calibration = predicted.calibration;
  if (!traces.empty()) {
    const Trace& t = traces.front();
    r.probe = t.probe + " (";
    if (!t.torch_version.empty()) r.probe += "PyTorch " + t.torch_version + ", ";
    r.probe +=
        fmt::format("CUDA runtime {}, NCCL {}, driver {}, {})", t.cuda_runtime, t.nccl_version,
                    t.driver_version.empty() ? "?" : t.driver_version, t.gpu_name);
  }
  std::vector<Bytes> errors;
  for (const Trace& t : traces) {
    if (t.rank < 0 || t.rank >= static_cast<int>(predicted.gpus.size())) {
      r.failures.push_back(fmt::format("trace of rank {} has no GPU in the ledger", t.rank));
      continue;
    }
    const GpuLedger& g = predicted.gpus[static_cast<size_t>(t.rank)];
    for (const LedgerStep& s : g.steps) {
      StepComparison c;
      c.rank = t.rank;
      c.step = s.name;
      c.component = component_of(s.name);
      c.predicted_taken = s.delta();
      c.predicted_free = s.free_after;
      const TraceStep* m = t.step(s.name);
      if (m != nullptr) {
        c.measured_taken = m->taken;
        c.measured_free = m->free_after;
        c.comparable = m->taken.has_value() && m->outcome == "ok" && s.outcome == StepOutcome::kOk;
      } else {
        r.failures.push_back(
            fmt::format("GPU {}: step '{}' is predicted but was not measured", t.rank, s.name));
      }
      if (const Fact* u = g.fact(fact_id::step_uncertainty(s.name))) {
        if (const auto* b = std::get_if<Bytes>(&u->value)) c.uncertainty = *b;
      }
      if (c.comparable) {
        errors.push_back(c.error());
        if (c.uncertainty > bytes(0) &&
            abs_bytes(c.error()) > tolerances.max_step_error + c.uncertainty) {
          r.failures.push_back(
              fmt::format("GPU {}: step '{}' off by {}, beyond {} plus its stated uncertainty {}",
                          t.rank, s.name, format_mib(abs_bytes(c.error())),
                          format_mib(tolerances.max_step_error), format_mib(c.uncertainty)));
        }
      }
      r.steps.push_back(std::move(c));
    }
    for (const TraceStep& m : t.steps) {
      bool predicted_step = false;
      for (const LedgerStep& s : g.steps) predicted_step = predicted_step || s.name == m.name;
      if (!predicted_step) {
        r.failures.push_back(
            fmt::format("GPU {}: step '{}' was measured but is not predicted", t.rank, m.name));
      }
    }
    for (const auto& [id, step] : kKeyFacts) {
      const Fact* p = g.fact(id);
      const Fact* m = nullptr;
      for (const Fact& f : t.facts) m = f.id == id ? &f : m;
      if (p == nullptr || m == nullptr || !numeric(*p) || !numeric(*m)) continue;
      FactComparison fc{t.rank, p->label, *numeric(*p), *numeric(*m), 0};
      fc.relative_error =
          fc.measured == 0 ? 0 : std::fabs(fc.predicted - fc.measured) / std::fabs(fc.measured);
      double limit = tolerances.fact_relative_error;
      for (const StepComparison& c : r.steps) {
        if (c.rank == t.rank && c.step == step && c.uncertainty > bytes(0)) {
          limit += static_cast<double>(c.uncertainty.value()) /
                   static_cast<double>(c.predicted_taken.value());
        }
      }
      if (fc.relative_error > limit) {
        r.failures.push_back(fmt::format("GPU {}: {} off by {:.3f} % (limit {:.3f} %)", t.rank,
                                         p->label, 100 * fc.relative_error, 100 * limit));
      }
      r.facts.push_back(std::move(fc));
    }
  }
  r.compared_steps = static_cast<int>(errors.size());
  r.median_abs_error = median_abs(errors);
  Bytes max_certain_error;  // over the steps without a stated uncertainty
  for (const StepComparison& c : r.steps) {
    if (!c.comparable) continue;
    r.max_abs_error = std::max(r.max_abs_error, abs_bytes(c.error()));
    if (c.uncertainty == bytes(0))
      max_certain_error = std::max(max_certain_error, abs_bytes(c.error()));
  }
  if (max_certain_error > tolerances.max_step_error) {
    r.failures.push_back(fmt::format("largest step error {} exceeds {}",
                                     format_mib(max_certain_error),
                                     format_mib(tolerances.max_step_error)));
  }
  if (r.median_abs_error > tolerances.median_step_error) {
    r.failures.push_back(fmt::format("median step error {} exceeds {}",
                                     format_mib(r.median_abs_error),
                                     format_mib(tolerances.median_step_error)));
  }
  return r;
}

std::string render_check(const CheckResult& r) {
  std::string out = fmt::format("### {}\n\nProbe: {}. Predicted with: {}.\n\n", r.scenario, r.probe,
                                r.calibration);
  out +=
      "| GPU | step | predicted | measured | error | free after (pred.) | free after (meas.) |\n"
      "| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n";
  std::map<std::string, std::pair<Bytes, Bytes>> components;
  for (const StepComparison& c : r.steps) {
    const std::string measured = c.measured_taken ? format_mib(*c.measured_taken) : "-";
    std::string error = c.comparable ? signed_mib(c.error()) : "-";
    if (c.uncertainty > bytes(0)) error += " (± " + format_mib(c.uncertainty) + " stated)";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", c.rank, c.step,
                       format_mib(c.predicted_taken), measured, error, format_mib(c.predicted_free),
                       c.measured_free ? format_mib(*c.measured_free) : "-");
    if (c.comparable) {
      components[c.component].first += c.predicted_taken;
      components[c.component].second += *c.measured_taken;
    }
  }
  out += "\n| component | predicted | measured | error |\n| --- | ---: | ---: | ---: |\n";
  for (const auto& [name, pm] : components) {
    out += fmt::format("| {} | {} | {} | {} |\n", name, format_mib(pm.first), format_mib(pm.second),
                       signed_mib(pm.first - pm.second));
  }
  if (!r.facts.empty()) {
    out +=
        "\n| GPU | fact | predicted | measured | relative error |\n| ---: | --- | ---: | ---: | "
        "---: |\n";
    for (const FactComparison& f : r.facts) {
      out +=
          fmt::format("| {} | {} | {} | {} | {:.4f} % |\n", f.rank, f.key,
                      format_count(static_cast<std::int64_t>(f.predicted)),
                      format_count(static_cast<std::int64_t>(f.measured)), 100 * f.relative_error);
    }
  }
  out += fmt::format("\n{} steps compared: median |error| {}, max |error| {} — {}\n",
                     r.compared_steps, format_mib(r.median_abs_error), format_mib(r.max_abs_error),
                     r.passed() ? "within tolerance" : "OUTSIDE TOLERANCE");
  for (const std::string& f : r.failures) out += "- " + f + "\n";
  return out + "\n";
}

}  // namespace gpumem
