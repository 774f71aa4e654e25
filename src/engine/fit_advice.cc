#include "engine/fit_advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <vector>

#include "engine/vllm/version.h"

namespace gpumem {
namespace {

// The two knobs of an engine: flags, the ledger facts holding their current values, the
// range of the fraction, and flags a new graph size replaces.
struct Knobs {
  std::string fraction_flag;
  std::string fraction_fact;
  int fraction_max_percent = 99;
  std::string graph_flag;
  std::string graph_fact;
  std::vector<std::string> graph_flags_replaced;
};

Knobs knobs_for(const Scenario& s) {
  if (s.engine.name == "vllm") {
    // vllm config/cache.py: gpu_memory_utilization in (0, 1].
    Knobs k{"--gpu-memory-utilization",
            "--gpu-memory-utilization",
            100,
            "",
            "max_cudagraph_capture_size",
            {}};
    const std::optional<vllm::Version> v = vllm::parse_version(s.engine.version);
    if (v && vllm::rules_for(*v).two_step_capture_sizes) {
      k.graph_flag = "--max-cudagraph-capture-size";
      k.graph_flags_replaced = {"--cudagraph-capture-sizes", "--cuda-graph-sizes"};
    } else {
      k.graph_flag = "--cuda-graph-sizes";
    }
    return k;
  }
  return {"--mem-fraction-static", "--mem-fraction-static", 99,
          "--cuda-graph-max-bs",   "cuda_graph_max_bs",     {"--cuda-graph-bs"}};
}

// The flag as written, with vLLM's underscore spelling read as dashes.
std::string canonical(std::string flag) {
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

Scenario with_flag(const Scenario& s, const std::string& flag, const std::string& value) {
  Scenario out = s;
  for (EngineArg& a : out.engine.args) {
    if (canonical(a.flag) == flag) {
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
std::optional<double> nearest_fraction(const Scenario& scenario, const SimulationInputs& inputs,
                                       const Knobs& k, double current_fraction) {
  const int current = static_cast<int>(std::lround(current_fraction * 100));
  for (int delta = 1; delta < 100; ++delta) {
    for (int sign : {+1, -1}) {
      const int candidate = current + sign * delta;
      if (candidate < 5 || candidate > k.fraction_max_percent) continue;
      const std::string value = fmt::format("{:.2f}", candidate / 100.0);
      if (fits(with_flag(scenario, k.fraction_flag, value), inputs)) return candidate / 100.0;
    }
  }
  return std::nullopt;
}

// The largest CUDA-graph size below `current` that makes the scenario start, searched in
// coarser steps for large sizes.
std::optional<std::int64_t> largest_graph_size(const Scenario& scenario,
                                               const SimulationInputs& inputs, const Knobs& k,
                                               std::int64_t current) {
  for (std::int64_t bs = current - 1; bs >= 1; --bs) {
    Scenario s = with_flag(scenario, k.graph_flag, std::to_string(bs));
    std::erase_if(s.engine.args, [&](const EngineArg& a) {
      for (const std::string& r : k.graph_flags_replaced) {
        if (canonical(a.flag) == r) return true;
      }
      return false;
    });
    if (fits(s, inputs)) return bs;
    bs = bs > 8 ? bs - bs / 8 : bs;
  }
  return std::nullopt;
}

}  // namespace

FitAdvice find_fit(const Scenario& scenario, const SimulationInputs& inputs, const Ledger& ledger) {
  const Knobs k = knobs_for(scenario);
  FitAdvice advice;
  // The two searches are independent: the graph size is searched on a second thread, so
  // a scenario that does not start is advised in the time of the longer search.
  std::future<std::optional<std::int64_t>> graph_size;
  if (const Fact* f = ledger.fact(k.graph_fact)) {
    graph_size = std::async(std::launch::async, largest_graph_size, std::cref(scenario),
                            std::cref(inputs), std::cref(k), std::get<std::int64_t>(f->value));
  }
  if (const Fact* f = ledger.fact(k.fraction_fact)) {
    advice.memory_fraction = nearest_fraction(scenario, inputs, k, std::get<double>(f->value));
  }
  if (graph_size.valid()) advice.graph_size = graph_size.get();
  return advice;
}

std::string advise_fit(const Scenario& scenario, const SimulationInputs& inputs,
                       const Ledger& ledger) {
  if (ledger.fits()) return "";
  const Knobs k = knobs_for(scenario);
  const FitAdvice a = find_fit(scenario, inputs, ledger);
  std::string out = "\nwhat would make it start (each alone, simulated):\n";
  const Fact* fraction = ledger.fact(k.fraction_fact);
  if (a.memory_fraction && fraction != nullptr) {
    out += fmt::format("  {} {:.2f} (instead of {:.3f})\n", k.fraction_flag, *a.memory_fraction,
                       std::get<double>(fraction->value));
  } else {
    out += fmt::format("  no {} from 0.05 to {:.2f}\n", k.fraction_flag,
                       k.fraction_max_percent / 100.0);
  }
  const Fact* graph = ledger.fact(k.graph_fact);
  if (a.graph_size && graph != nullptr) {
    out += fmt::format("  {} {} (instead of {})\n", k.graph_flag, *a.graph_size,
                       std::get<std::int64_t>(graph->value));
  } else {
    out += "  no smaller " + k.graph_flag + "\n";
  }
  return out;
}

}  // namespace gpumem
