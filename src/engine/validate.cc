#include "engine/validate.h"

#include "engine/sglang/environment.h"
#include "engine/sglang/flags.h"
#include "engine/sglang/layout.h"

namespace gpumem {

void validate_engine(const Scenario& scenario, const GpuCatalog& gpus, Diagnostics& diags) {
  (void)gpus;
  if (scenario.engine.name == "sglang") {
    sglang::ServerFlags flags = sglang::read_server_flags(scenario.engine, diags);
    sglang::check_layout(scenario, flags, diags);
    sglang::read_environment(scenario.engine, diags);
    return;
  }
  diags.error(scenario.engine.name_loc,
              "engine '" + scenario.engine.name + "' is not modelled yet; gpumem models sglang");
}

}  // namespace gpumem
