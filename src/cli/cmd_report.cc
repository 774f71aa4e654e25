// `gpumem report [SCENARIO...]`: writes every scenario's golden report — the Markdown ledger
// and the JSON ledger — under reports/scenarios/, deterministically.
#include <cstdio>
#include <filesystem>

#include "catalog/scenario.h"
#include "cli/command.h"
#include "cli/scenario_set.h"
#include "cli/simulated_scenario.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "report/render.h"
#include "runtime/ledger_json.h"
#include "simulate/fit_advice.h"
#include "simulate/simulate.h"

namespace gpumem::cli {

// Simulates `file` and writes its two golden files; errors go to `diags`.
bool write_golden(const Workspace& ws, const std::string& file, const std::string& golden_dir,
                  Diagnostics& diags) {
  std::optional<SimulatedScenario> sim = simulate_file(ws, file, "", diags);
  if (!sim) return false;
  const Ledger& ledger = sim->ledger;
  const std::string md =
      render_markdown(ledger) +
      (ledger.fit_advice ? advise_fit(*ledger.fit_advice, sim->scenario) : std::string());
  const Result<std::string> md_path = golden_path(golden_dir, sim->scenario.name, ".md");
  const Result<std::string> json_path = golden_path(golden_dir, sim->scenario.name, ".json");
  if (!md_path.ok() || !json_path.ok()) {
    diags.error({file, 0, 0},
                md_path.ok() ? json_path.status().message() : md_path.status().message());
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(golden_dir, ec);
  for (const auto& [path, text] :
       {std::pair<std::string, std::string>{*md_path, md}, {*json_path, ledger_to_json(ledger)}}) {
    if (Status w = write_file_atomically(path, text); !w.ok()) {
      diags.error({}, w.message());
      return false;
    }
  }
  return true;
}

Command report_command() {
  return {"report", "write the golden reports (Markdown and JSON ledgers) of the scenarios",
          [](CLI::App& app, const GlobalOptions& global) {
            auto files = std::make_shared<std::vector<std::string>>();
            auto out = std::make_shared<std::string>(kGoldenDir);
            app.add_option("scenarios", *files, "scenario files (default: scenarios/*.yaml)");
            app.add_option("--out", *out, "directory of the golden reports");
            return [files, out, &global]() -> ExitCode {
              Diagnostics diags;
              std::optional<Workspace> ws = open_workspace(global, diags);
              if (!ws) return report_diagnostics(diags);
              for (const std::string& f : scenario_files(*files)) {
                if (write_golden(*ws, f, *out, diags)) std::printf("%s: written\n", f.c_str());
              }
              return report_diagnostics(diags);
            };
          }};
}

}  // namespace gpumem::cli
