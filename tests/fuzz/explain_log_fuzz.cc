// libFuzzer target: explain's readers of a real start-up log on arbitrary text — the line
// reader (explain/log_line.h: frames, colour codes, redraws), the Python-literal reader of
// argument dumps (explain/python_literal.h), the SGLang and vLLM log readers
// (explain/log_reader.h), and the scenario a logged start-up implies
// (explain/implied_scenario.h), read back as `gpumem explain` reads it before a replay. The
// replay itself is left out: the scenario target fuzzes the simulation, and a replay
// simulates once per start-up found, which would cut the inputs tried per second.
//
// The options a log's own `# explain-args:` header gives (explain/log_header.h) are read too.
//
// Promises checked: an error names the log and a line and column inside it; every figure
// taken lies within the bounds of explain/figure_bounds.h and on a line of the log; the
// implied scenario is always a YAML mapping (text from the log cannot break its structure),
// and any error in it is located in it or in the log.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "catalog/scenario.h"
#include "explain/figure_bounds.h"
#include "explain/implied_scenario.h"
#include "explain/log_header.h"
#include "explain/log_line.h"
#include "explain/log_reader.h"
#include "explain/python_literal.h"
#include "tests/fuzz/bundled_catalogs.h"
#include "tests/fuzz/fuzz_checks.h"

namespace gpumem {
namespace {

// "file:LINE:COL: message" with LINE a line of the log, or "file: message".
void require_located_error(const std::string& message, const std::string& file, int lines) {
  fuzz::require(message.starts_with(file + ":"), "an error names the log", message);
  const std::string_view rest = std::string_view(message).substr(file.size() + 1);
  if (rest.starts_with(" ")) return;
  const size_t colon = rest.find(':');
  fuzz::require(colon != std::string_view::npos && colon > 0, "a located error has a line",
                message);
  const int line = std::stoi(std::string(rest.substr(0, colon)));
  fuzz::require(line >= 1 && line <= lines, "an error's line is a line of the log", message);
}

}  // namespace
}  // namespace gpumem

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "fuzz.log";
  const fuzz::Catalogs& catalogs = fuzz::bundled_catalogs();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<LogLine> lines = split_log_lines(text);
  const int count = static_cast<int>(lines.size());
  for (const LogLine& l : lines) {
    fuzz::require(l.number >= 1 && l.number <= count && l.column >= 1, "a line is located");
    for (const PyItems& items : {parse_keyword_items(l.message), parse_dict_items(l.message)}) {
      if (items.error) {
        fuzz::require(items.error->offset < l.message.size(), "a refused value is in its line");
      }
    }
  }
  if (const Result<ExplainOverrides> header = overrides_from_header(text, kFile, catalogs.gpus);
      !header.ok()) {
    require_located_error(header.status().message(), kFile, std::max(count, 1));
  } else {
    fuzz::require(header->gpu_count >= 0, "a header's GPU count is not negative");
  }
  for (const LogEngine engine : {LogEngine::kSglang, LogEngine::kVllm}) {
    const Result<StartupLog> log = read_startup_log(text, engine, kFile);
    if (!log.ok()) {
      require_located_error(log.status().message(), kFile, count);
      continue;
    }
    for (const LogRun& run : log->runs) {
      for (const Observation& o : run.observations) {
        fuzz::require(o.line >= 1 && o.line <= count, "a figure is on a line of the log");
        PrintedNumber n;
        n.value = o.value;
        n.decimals = o.decimals == kExact ? -1 : o.decimals;
        fuzz::require(!figure_out_of_bounds(o.quantity, n, "").has_value(),
                      "a figure taken is within bounds", std::to_string(o.value));
      }
      const ImpliedScenario implied =
          infer_scenario(run, log->engine, "fuzz", catalogs.gpus, catalogs.models);
      const ImpliedYaml yaml = implied_yaml(implied);
      Diagnostics diags;
      const std::optional<Scenario> scenario =
          parse_scenario("fuzz.yaml", yaml.text, catalogs.gpus, diags);
      fuzz::require(scenario.has_value(), "the implied scenario is a YAML mapping", yaml.text);
      fuzz::require(yaml.sources.size() ==
                        static_cast<size_t>(std::count(yaml.text.begin(), yaml.text.end(), '\n')),
                    "every line of the implied scenario has its source");
      fuzz::require_located(diags, "fuzz.yaml");
    }
  }
  return 0;
}
