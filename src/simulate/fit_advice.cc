#include "simulate/fit_advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <future>
#include <vector>

#include "core/units.h"
#include "engine/engine_model.h"
#include "runtime/key_figures.h"

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

bool fits(const Scenario& s, const SimulationInputs& inputs, Bytes min_headroom) {
  Diagnostics diags;
  std::optional<Ledger> l = simulate_scenario(s, inputs, diags);
  return l && diags.empty() && starts_safely(*l, min_headroom);
}

// The nearest fraction, in steps of 0.01, that makes the scenario start; ties go up.
std::optional<double> nearest_fraction(const EngineModel& engine, const Scenario& scenario,
                                       const SimulationInputs& inputs, Bytes min_headroom,
                                       const FitKnob& k, double current_fraction) {
  const int current = static_cast<int>(std::lround(current_fraction * 100));
  for (int delta = 1; delta < 100; ++delta) {
    for (int sign : {+1, -1}) {
      const int candidate = current + sign * delta;
      if (candidate < 5 || candidate > k.max_percent) continue;
      const std::string value = fmt::format("{:.2f}", candidate / 100.0);
      if (fits(with_flag(engine, scenario, k.flag, value), inputs, min_headroom)) {
        return candidate / 100.0;
      }
    }
  }
  return std::nullopt;
}

// The largest count below `current` that makes the scenario start: down in steps of an
// eighth until one starts, then a binary search between it and the last that did not (a
// smaller count never needs more memory).
std::optional<std::int64_t> largest_count(const EngineModel& engine, const Scenario& scenario,
                                          const SimulationInputs& inputs, Bytes min_headroom,
                                          const FitKnob& k, std::int64_t current) {
  auto starts_with = [&](std::int64_t count) {
    Scenario s = with_flag(engine, scenario, k.flag, std::to_string(count));
    std::erase_if(s.engine.args, [&](const EngineArg& a) {
      for (const std::string& r : k.replaces) {
        if (engine.canonical_flag(a.flag) == r) return true;
      }
      return false;
    });
    return fits(s, inputs, min_headroom);
  };
  std::int64_t failed = current;
  for (std::int64_t bs = current - 1; bs >= 1; --bs) {
    if (starts_with(bs)) {
      std::int64_t low = bs;       // starts
      std::int64_t high = failed;  // does not
      while (high - low > 1) {
        const std::int64_t mid = low + (high - low) / 2;
        (starts_with(mid) ? low : high) = mid;
      }
      return low;
    }
    failed = bs;
    bs = bs > 8 ? bs - bs / 8 : bs;
  }
  return std::nullopt;
}

// The longest request length below `current`, in steps of 1,024 tokens, that makes the
// scenario start: a binary search (a shorter maximum never needs more memory).
std::optional<std::int64_t> longest_length(const EngineModel& engine, const Scenario& scenario,
                                           const SimulationInputs& inputs, Bytes min_headroom,
                                           const FitKnob& k, std::int64_t current) {
  constexpr std::int64_t kStep = 1024;
  std::int64_t low = 1;                       // in steps of kStep
  std::int64_t high = (current - 1) / kStep;  // candidates are 1..high steps
  std::optional<std::int64_t> best;
  while (low <= high) {
    const std::int64_t mid = (low + high) / 2;
    if (fits(with_flag(engine, scenario, k.flag, std::to_string(mid * kStep)), inputs,
             min_headroom)) {
      best = mid * kStep;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return best;
}

// Where the fewest-GiB search of an offload stops: more than any GPU's weights today.
constexpr std::int64_t kMostOffloadGib = 4096;

// The fewest whole GiB above `current` of `k` (weights moved to CPU memory) that make the
// scenario start: doubling the step until one starts, then a binary search between it and the
// last that did not (moving more never needs more GPU memory).
std::optional<std::int64_t> fewest_gib(const EngineModel& engine, const Scenario& scenario,
                                       const SimulationInputs& inputs, Bytes min_headroom,
                                       const FitKnob& k, std::int64_t current) {
  auto starts_with = [&](std::int64_t n) {
    return fits(with_flag(engine, scenario, k.flag, std::to_string(n)), inputs, min_headroom);
  };
  std::int64_t failed = current;
  for (std::int64_t step = 1; current + step <= kMostOffloadGib; step *= 2) {
    const std::int64_t n = current + step;
    if (!starts_with(n)) {
      failed = n;
      continue;
    }
    std::int64_t low = failed;  // does not start
    std::int64_t high = n;      // starts
    while (high - low > 1) {
      const std::int64_t mid = low + (high - low) / 2;
      (starts_with(mid) ? high : low) = mid;
    }
    return high;
  }
  return std::nullopt;
}

// The whole GiB the scenario gives `flag` (0 when it does not).
std::int64_t given_gib(const EngineModel& engine, const Scenario& scenario,
                       const std::string& flag) {
  for (const EngineArg& a : scenario.engine.args) {
    if (engine.canonical_flag(a.flag) != flag || a.values.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(a.values.front().c_str(), &end);
    if (end != a.values.front().c_str() && std::isfinite(v) && v > 0) {
      return static_cast<std::int64_t>(std::min(v, 1e9));
    }
  }
  return 0;
}

// Whether the engine refuses the scenario (a diagnostic, whatever the memory).
bool refused(const Scenario& s, const SimulationInputs& inputs) {
  Diagnostics diags;
  const std::optional<Ledger> l = simulate_scenario(s, inputs, diags);
  return !l || !diags.empty();
}

}  // namespace

FitAdviceRecord find_fit(const Scenario& scenario, const SimulationInputs& inputs,
                         const Ledger& ledger, Bytes min_headroom) {
  FitAdviceRecord advice;
  advice.min_headroom = min_headroom;
  Diagnostics ignored;
  const EngineModel* engine = engine_of(scenario, ignored);
  if (engine == nullptr) return advice;
  // The searches are independent: the counts are searched on threads of their own, so a
  // scenario that does not start is advised in the time of the longest search.
  struct Search {
    const FitKnob* knob;
    std::string current;
    std::future<std::optional<std::string>> found;
  };
  const std::vector<FitKnob> knobs = engine->fit_knobs(scenario);
  std::vector<Search> searches;
  for (const FitKnob& k : knobs) {
    if (k.kind == FitKnob::Kind::kSwitch) {
      Search s{&k, k.instead_of, {}};
      s.found = std::async(std::launch::deferred, [&]() -> std::optional<std::string> {
        if (!fits(with_flag(*engine, scenario, k.flag, k.value), inputs, min_headroom)) {
          return std::nullopt;
        }
        return k.value;
      });
      searches.push_back(std::move(s));
      continue;
    }
    if (k.kind == FitKnob::Kind::kOffload) {
      // Searched where the start-up stops at the knob's step, if the engine takes the flag
      // for this scenario at all (vLLM refuses an offload of a quantized model, say).
      const GpuLedger* failed = ledger.first_failure();
      const LedgerStep* step = failed != nullptr ? failed->failed_step() : nullptr;
      if (step == nullptr || step->name != k.failing_step) continue;
      const std::int64_t current = given_gib(*engine, scenario, k.flag);
      if (current >= kMostOffloadGib ||
          refused(with_flag(*engine, scenario, k.flag, std::to_string(current + 1)), inputs)) {
        continue;
      }
      Search s{&k, std::to_string(current), {}};
      s.found = std::async(std::launch::async, [&, current]() -> std::optional<std::string> {
        const std::optional<std::int64_t> n =
            fewest_gib(*engine, scenario, inputs, min_headroom, k, current);
        if (!n) return std::nullopt;
        return std::to_string(*n);
      });
      searches.push_back(std::move(s));
      continue;
    }
    const Fact* f = ledger.fact(k.current_fact);
    if (f == nullptr) continue;
    Search s{&k, "", {}};
    if (k.kind == FitKnob::Kind::kMemoryFraction) {
      const double current = std::get<double>(f->value);
      s.current = fmt::format("{:.3f}", current);
      s.found = std::async(std::launch::deferred, [&, current]() -> std::optional<std::string> {
        const std::optional<double> v =
            nearest_fraction(*engine, scenario, inputs, min_headroom, k, current);
        if (!v) return std::nullopt;
        return fmt::format("{:.2f}", *v);
      });
    } else {
      const std::int64_t current = std::get<std::int64_t>(f->value);
      s.current = std::to_string(current);
      const bool length = k.kind == FitKnob::Kind::kMaxLength;
      // Counts above the knob's bound change nothing: the search starts just above it.
      const std::int64_t start = k.bound > 0 ? std::min(current, k.bound + 1) : current;
      s.found = std::async(
          length ? std::launch::deferred : std::launch::async,
          [&, current, start, length]() -> std::optional<std::string> {
            const std::optional<std::int64_t> n =
                length ? longest_length(*engine, scenario, inputs, min_headroom, k, current)
                       : largest_count(*engine, scenario, inputs, min_headroom, k, start);
            if (!n) return std::nullopt;
            return std::to_string(*n);
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

bool starts_safely(const Ledger& ledger, Bytes min_headroom) {
  if (!ledger.fits()) return false;
  if (min_headroom.value() <= 0) return true;
  const std::optional<Bytes> headroom = key_figures(ledger).min_headroom;
  return headroom && *headroom >= min_headroom;
}

namespace {

// "--enforce-eager" for a bare boolean switched on, "--kv-cache-dtype fp8" otherwise.
std::string switched(const std::string& flag, const std::string& value) {
  return value == "true" ? flag : flag + " " + value;
}

std::string nothing_found(const FitKnob& k) {
  switch (k.kind) {
    case FitKnob::Kind::kMemoryFraction:
      return fmt::format("  no {} from 0.05 to {:.2f}\n", k.flag, k.max_percent / 100.0);
    case FitKnob::Kind::kSwitch:
      return "  not " + switched(k.flag, k.value) + " either\n";
    case FitKnob::Kind::kOffload:
      return fmt::format("  no {} up to {} GiB\n", k.flag, kMostOffloadGib);
    case FitKnob::Kind::kCount:
    case FitKnob::Kind::kMaxLength:
      break;
  }
  return "  no smaller " + k.flag + "\n";
}

}  // namespace

std::string advise_fit(const FitAdviceRecord& advice, const Scenario& scenario) {
  Diagnostics ignored;
  const EngineModel* engine = engine_of(scenario, ignored);
  if (engine == nullptr) return "";
  std::string out = "\nwhat would make it start (each alone, simulated):\n";
  if (advice.min_headroom.value() > 0) {
    out = "\nwhat would make it start with " + format_mib(advice.min_headroom) +
          " of headroom (each alone, simulated):\n";
  }
  for (const FitKnob& k : engine->fit_knobs(scenario)) {
    bool said = false;
    for (const FitOption& o : advice.options) {
      if (o.flag != k.flag) continue;
      out += fmt::format("  {} (instead of {})\n", switched(o.flag, o.value), o.instead_of);
      said = true;
    }
    for (const std::string& f : advice.none_found) {
      if (f != k.flag || said) continue;
      out += nothing_found(k);
      said = true;
    }
    // A knob searched only at some failing step, or for some models, was not searched here.
    if (!said && k.kind != FitKnob::Kind::kOffload) out += nothing_found(k);
  }
  return out;
}

}  // namespace gpumem
