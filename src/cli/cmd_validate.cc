// `gpumem validate FILE...`: checks scenarios without simulating them. Every error of every
// file is printed as file:line:col; exit code 2 when there is any.
#include <cstdio>

#include "catalog/scenario.h"
#include "cli/command.h"
#include "cli/workspace.h"
#include "engine/validate.h"

namespace gpumem::cli {

Command validate_command() {
  return {"validate", "check scenario files: keys, types, units, names, parallel layout",
          [](CLI::App& app, const GlobalOptions& global) {
            auto files = std::make_shared<std::vector<std::string>>();
            auto download = std::make_shared<bool>(false);
            app.add_option("files", *files, "scenario YAML files")->required();
            add_download_flag(app, *download);
            return [files, download, &global]() -> ExitCode {
              Diagnostics diags;
              std::optional<Workspace> ws = open_workspace(global, diags, *download);
              if (!ws) return report_diagnostics(diags);
              for (const std::string& f : *files) {
                Diagnostics file_diags;
                std::optional<Scenario> s = load_scenario(f, ws->gpus, file_diags);
                if (s) validate_engine(*s, ws->gpus, ws->models, file_diags);
                if (file_diags.empty()) std::printf("%s: ok\n", f.c_str());
                diags.append(file_diags);
              }
              return report_diagnostics(diags);
            };
          }};
}

}  // namespace gpumem::cli
