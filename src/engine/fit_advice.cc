#include "engine/fit_advice.h"

#include <fmt/format.h>

#include <cmath>

namespace gpumem {
namespace {

Scenario with_flag(const Scenario& s, const std::string& flag, const std::string& value) {
  Scenario out = s;
  for (EngineArg& a : out.engine.args) {
    if (a.flag == flag) {
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

const Fact* fact(const Ledger& l, std::string_view key) { return l.fact(key); }

}  // namespace

FitAdvice find_fit(const Scenario& scenario, const SimulationInputs& inputs, const Ledger& ledger) {
  FitAdvice advice;
  if (const Fact* f = fact(ledger, "--mem-fraction-static")) {
    const int current = static_cast<int>(std::lround(std::get<double>(f->value) * 100));
    for (int delta = 1; delta < 100 && !advice.mem_fraction_static; ++delta) {
      for (int sign : {+1, -1}) {
        const int candidate = current + sign * delta;
        if (candidate < 5 || candidate > 99) continue;
        const std::string value = fmt::format("{:.2f}", candidate / 100.0);
        if (fits(with_flag(scenario, "--mem-fraction-static", value), inputs)) {
          advice.mem_fraction_static = candidate / 100.0;
          break;
        }
      }
    }
  }
  if (const Fact* f = fact(ledger, "cuda_graph_max_bs")) {
    for (std::int64_t bs = std::get<std::int64_t>(f->value) - 1; bs >= 1; --bs) {
      Scenario s = with_flag(scenario, "--cuda-graph-max-bs", std::to_string(bs));
      std::erase_if(s.engine.args, [](const EngineArg& a) { return a.flag == "--cuda-graph-bs"; });
      if (fits(s, inputs)) {
        advice.cuda_graph_max_bs = bs;
        break;
      }
      bs = bs > 8 ? bs - bs / 8 : bs;  // coarser steps for large sizes
    }
  }
  return advice;
}

std::string advise_fit(const Scenario& scenario, const SimulationInputs& inputs,
                       const Ledger& ledger) {
  if (ledger.fits()) return "";
  const FitAdvice a = find_fit(scenario, inputs, ledger);
  std::string out = "\nwhat would make it start (each alone, simulated):\n";
  const Fact* mfs = ledger.fact("--mem-fraction-static");
  if (a.mem_fraction_static && mfs != nullptr) {
    out += fmt::format("  --mem-fraction-static {:.2f} (instead of {:.3f})\n",
                       *a.mem_fraction_static, std::get<double>(mfs->value));
  } else {
    out += "  no --mem-fraction-static from 0.05 to 0.99\n";
  }
  const Fact* bs = ledger.fact("cuda_graph_max_bs");
  if (a.cuda_graph_max_bs && bs != nullptr) {
    out += fmt::format("  --cuda-graph-max-bs {} (instead of {})\n", *a.cuda_graph_max_bs,
                       std::get<std::int64_t>(bs->value));
  } else {
    out += "  no smaller --cuda-graph-max-bs\n";
  }
  return out;
}

}  // namespace gpumem
