// Simulating a published Hugging Face config (support/model_configs.h) on H200s in either
// engine, as the family tests do: the ledger of a run that must start cleanly, the diagnostics
// of one that must not, and a fact of GPU 0's ledger.
#ifndef GPUMEM_TESTS_SUPPORT_FAMILY_SIMULATION_H_
#define GPUMEM_TESTS_SUPPORT_FAMILY_SIMULATION_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "catalog/architecture.h"
#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "support/model_configs.h"
#include "support/test_catalogs.h"

namespace gpumem {

// The ledger of the scenario `text` (read as f.yaml), which must start cleanly; `what` names it
// in a failure.
inline Ledger scenario_ledger(const std::string& text, const std::string& what = "") {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("f.yaml", text, test_catalogs().gpus, diags);
  std::optional<Ledger> l;
  if (s && diags.empty()) {
    l = simulate_scenario(*s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}},
                          diags);
  }
  EXPECT_TRUE(l && diags.empty()) << what << ": " << diags.to_string();
  return l ? *l : Ledger{};
}

// The diagnostics simulating the scenario `text` (read as f.yaml) gives.
inline std::string scenario_errors(const std::string& text) {
  Diagnostics diags;
  std::optional<Scenario> s = parse_scenario("f.yaml", text, test_catalogs().gpus, diags);
  if (s && diags.empty()) {
    simulate_scenario(*s, SimulationInputs{test_catalogs().gpus, test_catalogs().models, {}},
                      diags);
  }
  return diags.to_string();
}

// `repo` is a config folder name (org--name) or a catalog slug; `args` extra engine flags,
// each line indented by four spaces.
inline Ledger family_ledger(const std::string& engine, const std::string& repo, int gpus,
                            const std::string& args, const std::string& gpu = "h200",
                            std::string version = "") {
  if (version.empty()) version = engine == "sglang" ? "0.5.9" : "0.21.0";
  const std::string tp = engine == "sglang" ? "--tp-size" : "--tensor-parallel-size";
  const std::string text =
      "hardware: {gpu: " + gpu + ", count: " + std::to_string(gpus) +
      "}\nengine:\n  name: " + engine + "\n  version: " + version + "\n  args:\n    " + tp + ": " +
      std::to_string(gpus) + "\n" + args +
      "model: " + (repo.find("--") == std::string::npos ? repo : public_config_dir(repo)) + "\n";
  return scenario_ledger(text, repo);
}

// The diagnostics simulating `repo` on `gpus` GPUs (one H200 by default) with `args` gives.
inline std::string family_errors(const std::string& engine, const std::string& repo,
                                 const std::string& args, int gpus = 1, std::string version = "",
                                 const std::string& gpu = "h200") {
  if (version.empty()) version = engine == "sglang" ? "0.5.9" : "0.21.0";
  const std::string text =
      "hardware: {gpu: " + gpu + ", count: " + std::to_string(gpus) +
      "}\nengine:\n  name: " + engine + "\n  version: " + version + "\n  args:\n" + args +
      "model: " + (repo.find("--") == std::string::npos ? repo : public_config_dir(repo)) + "\n";
  return scenario_errors(text);
}

// What reading `dir`'s config.json reports; the read must fail.
inline std::string config_dir_errors(const std::string& dir) {
  Diagnostics diags;
  EXPECT_FALSE(load_hf_config(dir + "/config.json", diags).ok()) << dir;
  return diags.to_string();
}

inline std::int64_t ledger_fact(const Ledger& l, std::string_view id) {
  if (l.gpus.empty()) return -1;
  const Fact* f = l.gpus.front().fact(id);
  EXPECT_NE(f, nullptr) << id;
  if (f == nullptr) return -1;
  if (const Bytes* b = std::get_if<Bytes>(&f->value)) return b->value();
  return std::get<std::int64_t>(f->value);
}

// SGLang's --mem-fraction-static as the run resolved it (-1 when the ledger has none).
inline double mem_fraction(const Ledger& l) {
  for (const Fact& f : l.facts) {
    if (f.id == "mem_fraction_static") return std::get<double>(f.value);
  }
  return -1.0;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_FAMILY_SIMULATION_H_
