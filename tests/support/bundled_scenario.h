// A bundled scenario (scenarios/<name>.yaml) simulated with the test catalogs, for tests that
// need a real ledger; load or simulation errors fail the calling test.
#ifndef GPUMEM_TESTS_SUPPORT_BUNDLED_SCENARIO_H_
#define GPUMEM_TESTS_SUPPORT_BUNDLED_SCENARIO_H_

#include <gtest/gtest.h>

#include <string>

#include "catalog/scenario.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {

inline Ledger simulate_bundled(const std::string& name, const SimulationConstants& constants = {}) {
  Diagnostics diags;
  std::optional<Scenario> s =
      load_scenario(GPUMEM_SOURCE_DIR "/scenarios/" + name + ".yaml", test_catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  if (!s) return {};
  std::optional<Ledger> l =
      simulate_scenario(*s, {test_catalogs().gpus, test_catalogs().models, constants}, diags);
  EXPECT_TRUE(l && diags.empty()) << diags.to_string();
  return l ? *l : Ledger{};
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_BUNDLED_SCENARIO_H_
