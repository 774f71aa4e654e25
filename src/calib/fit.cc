#include "calib/fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "calib/replayed_decisions.h"

namespace gpumem {
namespace {

// The predicted taken bytes of every comparable (rank, step) of `run`, in a fixed order.
Result<std::vector<double>> predictions(const FitRun& run, const SimulationInputs& inputs,
                                        std::vector<double>* measured) {
  Diagnostics diags;
  const GpuCatalog machine = with_traced_machine(inputs.gpus, run.scenario, run.traces.front());
  SimulationInputs replayed{machine, inputs.models,
                            with_replayed_program(inputs.constants, run.traces.front())};
  std::optional<Ledger> ledger = simulate_scenario(run.scenario, replayed, diags);
  if (!ledger || !diags.empty()) return invalid_input(run.dir + ": " + diags.to_string());
  std::vector<double> out;
  for (const Trace& t : run.traces) {
    if (t.rank >= static_cast<int>(ledger->gpus.size())) continue;
    for (const LedgerStep& s : ledger->gpus[static_cast<size_t>(t.rank)].steps) {
      const TraceStep* m = t.step(s.name);
      if (m == nullptr || !m->taken || m->outcome != "ok" || s.outcome != StepOutcome::kOk) {
        continue;
      }
      out.push_back(static_cast<double>(s.delta().value()));
      if (measured != nullptr) measured->push_back(static_cast<double>(m->taken->value()));
    }
  }
  return out;
}

SimulationConstants with_values(const SimulationConstants& base,
                                const std::vector<const Parameter*>& params,
                                const std::vector<double>& theta) {
  SimulationConstants c = base;
  for (size_t j = 0; j < params.size(); ++j) {
    params[j]->set(c, bytes(static_cast<std::int64_t>(std::llround(theta[j]))));
  }
  return c;
}

}  // namespace

ErrorSummary summarize(const std::vector<CheckResult>& checks) {
  ErrorSummary s;
  std::vector<Bytes> errors;
  for (const CheckResult& c : checks) {
    for (const StepComparison& step : c.steps) {
      if (!step.comparable) continue;
      errors.push_back(step.error());
      const Bytes abs = step.error().value() < 0 ? -step.error() : step.error();
      s.max = std::max(s.max, abs);
    }
  }
  s.steps = static_cast<int>(errors.size());
  s.median = median_abs(errors);
  return s;
}

Result<FitOutcome> fit_constants(const std::vector<FitRun>& runs, const GpuCatalog& gpus,
                                 const ModelCatalog& models, const SimulationConstants& start,
                                 const std::vector<const Parameter*>& params,
                                 const CheckTolerances& tolerances, int max_iterations) {
  std::vector<double> theta;
  for (const Parameter* p : params) theta.push_back(static_cast<double>(p->get(start).value()));
  FitOutcome out;
  // Every simulation of the fit shares weight lists; a weight load is restored only from
  // equal device constants, so nudged constants replay theirs.
  SimulationCache cache;
  for (int iter = 0; iter < max_iterations; ++iter) {
    std::vector<double> residual;
    std::vector<std::vector<double>> columns(params.size());
    const SimulationConstants current = with_values(start, params, theta);
    for (const FitRun& run : runs) {
      if (run.held_out) continue;
      std::vector<double> measured;
      Result<std::vector<double>> base =
          predictions(run, SimulationInputs{gpus, models, current, &cache}, &measured);
      if (!base.ok()) return base.status();
      for (size_t i = 0; i < base->size(); ++i) residual.push_back(measured[i] - (*base)[i]);
      for (size_t j = 0; j < params.size(); ++j) {
        std::vector<double> nudged_theta = theta;
        nudged_theta[j] += static_cast<double>(params[j]->step.value());
        Result<std::vector<double>> nudged = predictions(
            run, SimulationInputs{gpus, models, with_values(start, params, nudged_theta), &cache},
            nullptr);
        if (!nudged.ok()) return nudged.status();
        for (size_t i = 0; i < base->size(); ++i) {
          columns[j].push_back(((*nudged)[i] - (*base)[i]) /
                               static_cast<double>(params[j]->step.value()));
        }
      }
    }
    if (residual.empty()) return invalid_input("no comparable step in the runs to fit");
    Eigen::MatrixXd a(static_cast<Eigen::Index>(residual.size()),
                      static_cast<Eigen::Index>(params.size()));
    Eigen::VectorXd r(static_cast<Eigen::Index>(residual.size()));
    for (size_t i = 0; i < residual.size(); ++i) {
      r(static_cast<Eigen::Index>(i)) = residual[i];
      for (size_t j = 0; j < params.size(); ++j) {
        a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = columns[j][i];
      }
    }
    const Eigen::VectorXd step = a.completeOrthogonalDecomposition().solve(r);
    double moved = 0;
    for (size_t j = 0; j < params.size(); ++j) {
      const double before = theta[j];
      theta[j] = std::max(0.0, theta[j] + step(static_cast<Eigen::Index>(j)));
      moved = std::max(moved, std::fabs(theta[j] - before));
    }
    out.iterations = iter + 1;
    if (moved < 1.0) break;  // less than a byte
  }
  out.constants = with_values(start, params, theta);
  for (size_t j = 0; j < params.size(); ++j) {
    out.values.emplace_back(std::string(params[j]->name), params[j]->get(out.constants));
  }
  for (const FitRun& run : runs) {
    Diagnostics diags;
    const GpuCatalog machine = with_traced_machine(gpus, run.scenario, run.traces.front());
    std::optional<Ledger> ledger = simulate_scenario(
        run.scenario,
        SimulationInputs{machine, models, with_replayed_program(out.constants, run.traces.front())},
        diags);
    if (!ledger || !diags.empty()) return invalid_input(run.dir + ": " + diags.to_string());
    CheckResult c = check_ledger(*ledger, run.traces, tolerances);
    (run.held_out ? out.held_out : out.fitted).push_back(std::move(c));
  }
  return out;
}

}  // namespace gpumem
