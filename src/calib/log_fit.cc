#include "calib/log_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "calib/parameters.h"
#include "core/python_format.h"
#include "runtime/fact_ids.h"

namespace gpumem {
namespace {

// The finite-difference step of the context: a whole number of pages, so that a figure the
// context reaches moves by exactly it.
constexpr Bytes kStep = mib(64);

bool before_weights(Quantity q) {
  return q == Quantity::kFreeBeforeWeights || q == Quantity::kFreeAtStartup;
}

// The ledger fact each engine records the figure's free memory in, unrounded.
std::string_view free_fact(Quantity q) {
  return q == Quantity::kFreeBeforeWeights ? fact_id::kFreeBeforeWeights
                                           : fact_id::kInitSnapshotFree;
}

Bytes gib_bytes(double g) { return bytes(std::llround(g * static_cast<double>(gib(1).value()))); }

// A start-up on the GPU that prints a figure before the weights, as it is replayed.
struct Replayable {
  const LogCase* log_case = nullptr;
  size_t run = 0;
  std::string name;  // the replay's scenario name, as explain_log names it
  ExplainOverrides overrides;
  std::string model;
};

std::string run_name(const LogCase& c, size_t run) {
  std::string stem = c.file.substr(c.file.rfind('/') + 1);
  stem = stem.substr(0, stem.rfind('.'));
  return c.log.runs.size() == 1 ? stem : stem + "-" + std::to_string(run + 1);
}

class ContextFit {
 public:
  ContextFit(const GpuSpec& gpu, const SimulationConstants& start, const GpuCatalog& gpus,
             const ModelCatalog& models)
      : gpu_(gpu), start_(start), gpus_(gpus), models_(models) {}

  RunExplanation replay(const LogCase& c, size_t run, const std::string& name,
                        const ExplainOverrides& overrides, Bytes context) const {
    SimulationConstants at = start_;
    find_parameter("context")->set(at, context);
    const ExplainContext ctx{
        gpus_,
        models_,
        [this, at](const Scenario& s, Diagnostics&) -> std::optional<SimulationConstants> {
          const GpuSpec* g = gpus_.find(s.hardware.gpu);
          if (g == nullptr || g->name != gpu_.name) return std::nullopt;
          return at;
        },
        {}};
    // A scenario beside the log may pin what the log printed (`observed:`); the fit compares
    // gpumem's own figures, so it replays the scenario without them.
    std::optional<Scenario> user = c.scenario;
    if (user) {
      const SourceLoc loc = user->observed.loc;
      user->observed = {};
      user->observed.loc = loc;
    }
    return explain_run(c.log.runs[run], c.log.engine, c.file, name, user ? &*user : nullptr,
                       overrides, ctx, false);
  }

  RunExplanation replay(const Replayable& r, Bytes context) const {
    return replay(*r.log_case, r.run, r.name, r.overrides, context);
  }

  // Whether the start-up ran on the GPU fitted (a catalog GPU of that name, not an unlisted
  // one modelled on it: its total is another).
  bool on_gpu(const RunExplanation& r) const {
    if (r.ledger) return r.ledger->gpu_type == gpu_.name && !r.implied.unlisted_gpu;
    const GpuSpec* g = gpus_.find(r.implied.gpu.value);
    return g != nullptr && g->name == gpu_.name && !r.implied.unlisted_gpu;
  }

 private:
  const GpuSpec& gpu_;
  const SimulationConstants& start_;
  const GpuCatalog& gpus_;
  const ModelCatalog& models_;
};

bool prints_figure_before_weights(const LogRun& run) {
  for (const Observation& o : run.observations) {
    if (before_weights(o.quantity)) return true;
  }
  return false;
}

// What the replay predicts for each figure printed before the weights, in the order of the
// explanation's figures: the GPU's CUDA total and its free memory then (nullopt where the
// replay records no such fact for that rank).
struct Predicted {
  Bytes total;
  Bytes free;
  Bytes distributed;  // SGLang's D as the replay prints it, where the log prints D as well
  Bytes used() const { return total - free - distributed; }
};

// SGLang's "Init torch distributed ends. mem usage=D" of the figure's rank, logged and
// predicted.
const FigureCheck* distributed_of(const RunExplanation& r, const FigureCheck& c) {
  for (const FigureCheck& d : r.figures) {
    if (d.quantity == Quantity::kInitDistributedUsage && d.gpu == c.gpu && d.predicted) return &d;
  }
  return nullptr;
}

std::vector<std::optional<Predicted>> predicted_figures(const RunExplanation& r) {
  std::vector<std::optional<Predicted>> out;
  for (const FigureCheck& c : r.figures) {
    if (!before_weights(c.quantity)) continue;
    std::optional<Predicted> p;
    for (const GpuLedger& g : r.ledger->gpus) {
      if (g.rank != c.gpu) continue;
      if (const Fact* f = g.fact(free_fact(c.quantity))) {
        if (const auto* free = std::get_if<Bytes>(&f->value)) p = Predicted{g.total, *free, {}};
      }
    }
    if (const FigureCheck* d = distributed_of(r, c); p && d) {
      p->distributed = bytes(std::llround(*d->predicted * static_cast<double>(gib(1).value())));
    }
    out.push_back(p);
  }
  return out;
}

// The CUDA total the log prints on the figure's own line (vLLM's "Free memory on device
// (F/T GiB)").
std::optional<double> logged_total(const LogRun& run, const FigureCheck& c) {
  for (const Observation& o : run.observations) {
    if (o.quantity == Quantity::kTotalMemory && o.line == c.line) return o.value;
  }
  return std::nullopt;
}

// The figure `f` of start-up `run` of `c` as the fit compares it, or nullopt with `why` when
// it is too far from the prediction to be the context's.
std::optional<ContextFigure> context_figure(const LogCase& c, size_t run, const RunExplanation& e,
                                            const FigureCheck& f, const Predicted& p,
                                            const std::string& model, std::string& why) {
  ContextFigure figure;
  figure.file = c.file;
  figure.startup = static_cast<int>(run) + 1;
  figure.line = f.line;
  figure.gpu = f.gpu;
  figure.quantity = f.quantity;
  figure.logged_gib = f.logged;
  figure.logged_total_gib = logged_total(c.log.runs[run], f);
  if (const FigureCheck* d = distributed_of(e, f)) figure.logged_distributed_gib = d->logged;
  const Bytes total = figure.logged_total_gib ? gib_bytes(*figure.logged_total_gib) : p.total;
  figure.used_logged =
      total - gib_bytes(f.logged) - gib_bytes(figure.logged_distributed_gib.value_or(0));
  figure.used_start = p.used();
  const bool communicators = e.ledger->gpus.size() > 1 && !figure.logged_distributed_gib;
  figure.role = c.held_out      ? FigureRole::kHeldOut
                : communicators ? FigureRole::kChecked
                                : FigureRole::kFitted;
  figure.model = model;
  const Bytes gap = figure.used_logged - figure.used_start;
  if (std::llabs(gap.value()) > kOutlierGap.value()) {
    why = fmt::format(
        "line {}: GPU {} held {} {} than gpumem predicts before the weights; no context is that "
        "size (other processes on the GPU, or another GPU than the one stated)",
        f.line, f.gpu, format_gib(bytes(std::llabs(gap.value()))),
        gap.value() > 0 ? "more" : "less");
    return std::nullopt;
  }
  return figure;
}

// Gauss-Newton rounds of the context from out.start_context (used_fitted holding each
// figure's prediction there), `evaluate` setting used_fitted at another; sets
// out.fitted_context.
Status fit_rounds(LogFitOutcome& out, const GpuSpec& gpu,
                  const std::function<Status(Bytes)>& evaluate) {
  Bytes context = out.start_context;
  for (ContextFigure& f : out.figures) f.used_fitted = f.used_start;
  // The squared residual of the fitted figures at the context they were last evaluated at.
  const auto squared_residual = [&out] {
    double sum = 0;
    for (const ContextFigure& f : out.figures) {
      if (f.role != FigureRole::kFitted || f.derivative == 0) continue;
      const double r = static_cast<double>((f.used_logged - f.used_fitted).value());
      sum += r * r;
    }
    return sum;
  };
  // Linear in the context, but a figure may be quantized (SGLang takes F as the world minimum
  // through a float32 all-reduce of GiB: 2 KiB steps at 20 GiB), so the rounds stop when one
  // no longer lowers the residual, keeping the better context.
  double residual = squared_residual();
  while (out.rounds < 4) {
    ++out.rounds;
    double moment = 0;
    double weight = 0;
    for (const ContextFigure& f : out.figures) {
      if (f.role != FigureRole::kFitted || f.derivative == 0) continue;
      moment += f.derivative * static_cast<double>((f.used_logged - f.used_fitted).value());
      weight += f.derivative * f.derivative;
    }
    if (weight == 0) {
      return invalid_input(fmt::format(
          "no start-up on {} prints memory before the weights that the context alone moves (on "
          "one GPU, or beside SGLang's distributed-init usage){}",
          gpu.name,
          out.left_out.empty()
              ? std::string()
              : fmt::format(" ({} left out: {})", out.left_out.size(), out.left_out.front().why)));
    }
    const Bytes next =
        bytes(std::max<std::int64_t>(0, context.value() + std::llround(moment / weight)));
    if (next == context) break;
    std::vector<Bytes> previous;
    for (const ContextFigure& f : out.figures) previous.push_back(f.used_fitted);
    GPUMEM_RETURN_IF_ERROR(evaluate(next));
    const double next_residual = squared_residual();
    if (next_residual >= residual) {
      for (size_t k = 0; k < previous.size(); ++k) out.figures[k].used_fitted = previous[k];
      break;
    }
    context = next;
    residual = next_residual;
  }
  out.fitted_context = context;
  return {};
}

}  // namespace

Result<LogFitOutcome> fit_context_to_logs(const std::vector<LogCase>& cases, const GpuSpec& gpu,
                                          const SimulationConstants& start, const GpuCatalog& gpus,
                                          const ModelCatalog& models, const std::string& stand_in) {
  const ContextFit fit(gpu, start, gpus, models);
  LogFitOutcome out;
  out.start_context = find_parameter("context")->get(start);
  // The start-ups replayed, and per start-up the index in out.figures of each of its figures
  // before the weights (SIZE_MAX for one left out).
  std::vector<Replayable> replays;
  std::vector<std::vector<size_t>> figures_of;
  for (const LogCase& c : cases) {
    for (size_t i = 0; i < c.log.runs.size(); ++i) {
      if (!prints_figure_before_weights(c.log.runs[i])) continue;
      Replayable r{&c, i, run_name(c, i), c.overrides, ""};
      r.overrides.from_scratch = true;
      RunExplanation e = fit.replay(r, out.start_context);
      if (!fit.on_gpu(e)) continue;
      const int startup = static_cast<int>(i) + 1;
      // A GPU taken for the nearest CUDA total may be another card of that size (a 48 GB
      // RTX 4090 is "nearest" the RTX 6000 Ada): its context would be fitted to another GPU.
      if (!c.scenario && e.implied.gpu_by_nearest_total) {
        out.left_out.push_back({c.file, startup, c.log.runs[i].first_line,
                                "the GPU is a guess by size (" + e.implied.gpu.note +
                                    "), not named by the log or its explain-args header"});
        continue;
      }
      r.model = !c.scenario ? (e.implied.model.value.empty() ? c.log.runs[i].model.value_or("")
                                                             : e.implied.model.value)
                : !c.scenario->model.catalog_name.empty() ? c.scenario->model.catalog_name
                                                          : c.scenario->model.hf_config_path;
      // The figures before the weights do not depend on the model: a model gpumem cannot
      // build is replaced by the stand-in, and the report says so.
      if (!e.replayed() && !c.scenario) {
        ExplainOverrides with_stand_in = r.overrides;
        with_stand_in.model = stand_in;
        RunExplanation again = fit.replay(c, i, r.name, with_stand_in, out.start_context);
        if (again.replayed()) {
          r.overrides = with_stand_in;
          r.model = stand_in + " standing in for " +
                    (r.model.empty() ? std::string("a model the log does not name") : r.model);
          e = std::move(again);
        } else {
          e.not_replayed += "; with the stand-in " + stand_in + ": " + again.not_replayed;
        }
      }
      if (!e.replayed()) {
        out.left_out.push_back({c.file, startup, c.log.runs[i].first_line, e.not_replayed});
        continue;
      }
      const std::vector<std::optional<Predicted>> predicted = predicted_figures(e);
      std::vector<size_t> indices;
      size_t k = 0;
      for (const FigureCheck& f : e.figures) {
        if (!before_weights(f.quantity)) continue;
        const std::optional<Predicted> p = predicted[k++];
        if (!p) {
          out.left_out.push_back({c.file, startup, f.line,
                                  fmt::format("line {}: the replay of GPU {} records no {}", f.line,
                                              f.gpu, quantity_name(f.quantity))});
          indices.push_back(SIZE_MAX);
          continue;
        }
        std::string why;
        std::optional<ContextFigure> figure = context_figure(c, i, e, f, *p, r.model, why);
        if (!figure) {
          out.left_out.push_back({c.file, startup, f.line, why});
          indices.push_back(SIZE_MAX);
          continue;
        }
        indices.push_back(out.figures.size());
        out.figures.push_back(std::move(*figure));
      }
      replays.push_back(std::move(r));
      figures_of.push_back(std::move(indices));
    }
  }
  // Every figure's used memory at `context`, into `field`.
  const auto evaluate = [&](Bytes context, Bytes ContextFigure::*field) -> Status {
    for (size_t j = 0; j < replays.size(); ++j) {
      const RunExplanation e = fit.replay(replays[j], context);
      if (!e.replayed()) {
        return invalid_input(fmt::format(
            "{} start-up {}: with a context of {} the replay fails "
            "before the weights: {}",
            replays[j].log_case->file, replays[j].run + 1, format_gib(context), e.not_replayed));
      }
      const std::vector<std::optional<Predicted>> predicted = predicted_figures(e);
      for (size_t k = 0; k < predicted.size() && k < figures_of[j].size(); ++k) {
        if (figures_of[j][k] == SIZE_MAX || !predicted[k]) continue;
        out.figures[figures_of[j][k]].*field = predicted[k]->used();
      }
    }
    return {};
  };
  // The derivative of each figure by the context, from one step.
  GPUMEM_RETURN_IF_ERROR(evaluate(out.start_context + kStep, &ContextFigure::used_fitted));
  for (ContextFigure& f : out.figures) {
    f.derivative = static_cast<double>((f.used_fitted - f.used_start).value()) /
                   static_cast<double>(kStep.value());
  }
  GPUMEM_RETURN_IF_ERROR(fit_rounds(out, gpu, [&evaluate](Bytes context) {
    return evaluate(context, &ContextFigure::used_fitted);
  }));
  return out;
}

}  // namespace gpumem
