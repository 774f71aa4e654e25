// The scenario a logged start-up implies: engine and release, GPU type and count, model,
// the memory flags the log states, and the figures it printed that pin a replay. Every value
// keeps where it came from (a line of the log, or why it is assumed), and the whole can be
// written as a scenario YAML file the user edits and re-runs (`gpumem explain LOG
// --scenario FILE`).
//
// What the log cannot say stays open: a GPU that is neither named nor sized, a model that is
// not in the catalog (or not named). Such a scenario is still written, with the gap marked,
// but cannot be replayed. A GPU the log sizes but the catalog lacks is an unlisted GPU
// (explain/gpu_choice.h), which the replay adds to the catalog.
#ifndef GPUMEM_EXPLAIN_IMPLIED_SCENARIO_H_
#define GPUMEM_EXPLAIN_IMPLIED_SCENARIO_H_

#include <string>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "explain/log_line.h"
#include "explain/startup_log.h"

namespace gpumem {

struct Sourced {
  std::string value;
  std::string note;  // where it came from
  LogPosition at;    // the log's line and column it was read at; line 0 when none
};

// An `observed:` value the log printed: the key, its value as a size ("21.63GiB",
// "59212694937B"), and the line(s) it was read from.
struct Pin {
  std::string key;
  std::string size;
  std::string note;
  LogPosition at;
};

struct ImpliedScenario {
  LogEngine engine = LogEngine::kSglang;
  std::string name;
  Sourced version;
  // The engine ran from vLLM's Python LLM class (`entry: offline`), at this line; 0: its server.
  int offline_call_line = 0;
  bool version_older_than_modelled = false;
  bool version_newer_than_modelled = false;
  Sourced gpu;  // a catalog name, or the unlisted GPU's; empty value when unknown
  std::optional<GpuSpec> unlisted_gpu;  // a GPU the catalog lacks (explain/gpu_choice.h)
  std::string gpu_template;             // the catalog GPU it is modelled on
  bool gpu_by_nearest_total = false;    // a guess by size (GpuChoice::by_nearest_total)
  int gpus_per_node = 1;
  int nodes = 1;
  std::string count_note;
  LogPosition count_at;           // the flag the count follows from
  bool tp_from_prefixes = false;  // no TP flag: `args` carries the one the rank prefixes imply
  // ... and that TP is exact, not a lower bound (vLLM's EP ranks fix it): a GPU count the user
  // gives fills DP instead.
  bool tp_exact = false;
  Sourced model;  // a catalog slug when resolved, else the name as logged (or empty)
  bool model_resolved = false;
  std::vector<LoggedFlag> args;  // flags that change start-up memory
  // Environment variables the log shows were in effect: the name and the value, sourced.
  std::vector<std::pair<std::string, Sourced>> env;
  std::vector<std::string> left_out;  // stated but not written, and why
  std::vector<Pin> pins;

  bool complete() const { return !gpu.value.empty() && model_resolved; }
};

ImpliedScenario infer_scenario(const LogRun& run, LogEngine engine, const std::string& name,
                               const GpuCatalog& gpus, const ModelCatalog& models);

// `count` GPUs in all, as the user gives them (--gpu-count). Where no TP size was logged, the
// scenario's TP (and, with DP attention, its DP) becomes what fills them; where the rank
// prefixes fix TP exactly, DP does.
void set_gpu_count(ImpliedScenario& s, int count);

// The pins of a run (also used on a scenario the user gives).
std::vector<Pin> log_pins(const LogRun& run, LogEngine engine);

// The scenario as YAML, with `header` (comment lines) on top and every value's source as
// a comment.
std::string scenario_yaml(const ImpliedScenario& s, const std::string& header);

// The same YAML without a header, and for each of its lines the place in the log its value
// was read from (line 0: none), so that an error the scenario's reader finds in the YAML
// can be reported where the log says it.
struct ImpliedYaml {
  std::string text;
  std::vector<LogPosition> sources;
};
ImpliedYaml implied_yaml(const ImpliedScenario& s);

// Sets each `observed` value of `s` that the scenario leaves unset; returns the keys set.
std::vector<std::string> apply_pins(Scenario& s, const std::vector<Pin>& pins);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_IMPLIED_SCENARIO_H_
