#include "simulate/fit_advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <vector>

#include "engine/engine_model.h"

namespace gpumem {
namespace {

Scenario with_flag(const EngineModel& engine, const Scenario& s, const std::string& flag,
                   const std::string& value) {
  Scenario out = s;
  for (EngineArg& a : out.engine.args) {
    if (engine.canonical_flag(a.flag) == flag) {
      a.values = {value};
      a.is_list = false;
      return out;
    }
  }
  EngineArg a;
  a.flag = flag;
  a.values = {value};
  a.flag_loc = a.value_loc = {s.file, 0, 0};
  out.engine.args.push_back(std::move(a));
  return out;
}

bool fits(const Scenario& s, const SimulationInputs& inputs) {
  Diagnostics diags;
  std::optional<Ledger> l = simulate_scenario(s, inputs, diags);
  return l && diags.empty() && l->fits();
}

// The nearest fraction, in steps of 0.01, that makes the scenario start; ties go up.
std::optional<double> nearest_fraction(const EngineModel& engine, const Scenario& scenario,
                                       const SimulationInputs& inputs, const FitKnob& k,
                                       double current_fraction) {
  const int current = static_cast<int>(std::lround(current_fraction * 100));
  for (int delta = 1; delta < 100; ++delta) {
    for (int sign : {+1, -1}) {
      const int candidate = current + sign * delta;
      if (candidate < 5 || candidate > k.max_percent) continue;
      const std::string value = fmt::format("{:.2f}", candidate / 100.0);
      if (fits(with_flag(engine, scenario, k.flag, value), inputs)) return candidate / 100.0;
    }
  }
  return std::nullopt;
}

// The largest CUDA-graph size below `current` that makes the scenario start, searched in
// coarser steps for large sizes.
std::optional<std::int64_t> largest_graph_size(const EngineModel& engine, const Scenario& scenario,
                                               const SimulationInputs& inputs, const FitKnob& k,
                                               std::int64_t current) {
  for (std::int64_t bs = current - 1; bs >= 1; --bs) {
    Scenario s = with_flag(engine, scenario, k.flag, std::to_string(bs));
    std::erase_if(s.engine.args, [&](const EngineArg& a) {
      for (const std::string& r : k.replaces) {
        if (engine.canonical_flag(a.flag) == r) return true;
      }
      return false;
    });
    if (fits(s, inputs)) return bs;
    bs = bs > 8 ? bs - bs / 8 : bs;
  }
  return std::nullopt;
}

// The longest request length below `current`, in steps of 1,024 tokens, that makes the
// scenario start: a binary search (a shorter maximum never needs more memory).
std::optional<std::int64_t> longest_length(const EngineModel& engine, const Scenario& scenario,
                                           const SimulationInputs& inputs, const FitKnob& k,
                                           std::int64_t current) {
  constexpr std::int64_t kStep = 1024;
  std::int64_t low = 1;                       // in steps of kStep
  std::int64_t high = (current - 1) / kStep;  // candidates are 1..high steps
  std::optional<std::int64_t> best;
  while (low <= high) {
    const std::int64_t mid = (low + high) / 2;
    if (fits(with_flag(engine, scenario, k.flag, std::to_string(mid * kStep)), inputs)) {
      best = mid * kStep;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return best;
}

}  // namespace

FitAdviceRecord find_fit(const Scenario& scenario, const SimulationInputs& inputs,
                         const Ledger& ledger) {
  FitAdviceRecord advice;
  Diagnostics ignored;
  const EngineModel* engine = engine_of(scenario, ignored);
  if (engine == nullptr) return advice;
  // The searches are independent: the graph size is searched on a second thread, so a
  // scenario that does not start is advised in the time of the longer search.
  struct Search {
    const FitKnob* knob;
    std::string current;
    std::future<std::optional<std::string>> found;
  };
  const std::vector<FitKnob> knobs = engine->fit_knobs(scenario);
  std::vector<Search> searches;
  for (const FitKnob& k : knobs) {
    const Fact* f = ledger.fact(k.current_fact);
    if (f == nullptr) continue;
    Search s{&k, "", {}};
    if (k.kind == FitKnob::Kind::kMaxLength) {
      const std::int64_t current = std::get<std::int64_t>(f->value);
      s.current = std::to_string(current);
      s.found = std::async(std::launch::deferred, [&, current]() -> std::optional<std::string> {
        const std::optional<std::int64_t> len =
            longest_length(*engine, scenario, inputs, k, current);
        if (!len) return std::nullopt;
        return std::to_string(*len);
      });
    } else if (k.kind == FitKnob::Kind::kGraphSize) {
      const std::int64_t current = std::get<std::int64_t>(f->value);
      s.current = std::to_string(current);
      s.found = std::async(std::launch::async, [&, current]() -> std::optional<std::string> {
        const std::optional<std::int64_t> bs =
            largest_graph_size(*engine, scenario, inputs, k, current);
        if (!bs) return std::nullopt;
        return std::to_string(*bs);
      });
    } else {
      const double current = std::get<double>(f->value);
      s.current = fmt::format("{:.3f}", current);
      s.found = std::async(std::launch::deferred, [&, current]() -> std::optional<std::string> {
        const std::optional<double> v = nearest_fraction(*engine, scenario, inputs, k, current);
        if (!v) return std::nullopt;
        return fmt::format("{:.2f}", *v);
      });
    }
    searches.push_back(std::move(s));
  }
  for (Search& s : searches) {
    if (std::optional<std::string> v = s.found.get()) {
      advice.options.push_back({s.knob->flag, *v, s.current});
    } else {
      advice.none_found.push_back(s.knob->flag);
    }
  }
  return advice;
}

namespace {

std::string nothing_found(const FitKnob& k) {
  if (k.kind == FitKnob::Kind::kMemoryFraction) {
    return fmt::format("  no {} from 0.05 to {:.2f}\n", k.flag, k.max_percent / 100.0);
  }
  return "  no smaller " + k.flag + "\n";
}

}  // namespace

std::string advise_fit(const FitAdviceRecord& advice, const Scenario& scenario) {
  Diagnostics ignored;
  const EngineModel* engine = engine_of(scenario, ignored);
  if (engine == nullptr) return "";
  std::string out = "\nwhat would make it start (each alone, simulated):\n";
  for (const FitKnob& k : engine->fit_knobs(scenario)) {
    bool said = false;
    for (const FitOption& o : advice.options) {
      if (o.flag != k.flag) continue;
      out += fmt::format("  {} {} (instead of {})\n", o.flag, o.value, o.instead_of);
      said = true;
    }
    for (const std::string& f : advice.none_found) {
      if (f != k.flag || said) continue;
      out += nothing_found(k);
      said = true;
    }
    if (!said) out += nothing_found(k);
  }
  return out;
}

}  // namespace gpumem
