#include "tests/explain/explain_case.h"

#include <gtest/gtest.h>

#include <optional>

#include "core/atomic_file.h"
#include "explain/log_reader.h"
#include "support/published_constants.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";

}  // namespace

Explanation explain_case(const std::string& log_file, const ExplainOverrides& fill,
                         const std::string& scenario_file) {
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  Result<std::string> text = read_file(kDir + log_file, InputKind::kLog);
  EXPECT_TRUE(text.ok()) << log_file;
  Result<StartupLog> log = read_startup_log(text.value(), std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  std::optional<Scenario> user;
  if (!scenario_file.empty()) {
    Diagnostics diags;
    user = load_scenario(kDir + scenario_file, test_catalogs().gpus, diags);
    EXPECT_TRUE(user && diags.empty()) << diags.to_string();
  }
  return explain_log(log.value(), log_file, user ? &*user : nullptr, fill, ctx);
}

ExplainOverrides with(std::string gpu, std::string model, int gpu_count) {
  ExplainOverrides o;
  o.gpu = std::move(gpu);
  o.model = std::move(model);
  o.gpu_count = gpu_count;
  return o;
}

// The comparison of the figure printed at `line` of the log.
const FigureCheck& at(const RunExplanation& r, Quantity q, int line) {
  for (const FigureCheck& c : r.figures) {
    if (c.quantity == q && c.line == line) return c;
  }
  ADD_FAILURE() << "no " << quantity_name(q) << " at line " << line;
  static const FigureCheck kNone{};
  return kNone;
}

}  // namespace gpumem
