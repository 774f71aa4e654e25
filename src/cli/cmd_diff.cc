// `gpumem diff`: what moved in the memory predictions. By default it simulates every
// scenario afresh and compares with its golden JSON ledger under reports/scenarios/; with
// --base REV the goldens of that git revision stand for "before"; with --ledgers it compares
// two ledger files. Exit code 4 when anything changed, 0 otherwise; --update rewrites the
// goldens instead of failing.
#include <cstdio>
#include <memory>

#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/scenario_set.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "engine/simulate.h"
#include "report/ledger_diff.h"
#include "sim/ledger_json.h"

namespace gpumem::cli {

bool write_golden(const Workspace& ws, const std::string& file, const std::string& golden_dir,
                  Diagnostics& diags);

namespace {

// `git show REV:PATH`, or a Status when git or the file at that revision is missing.
Result<std::string> git_show(const std::string& rev, const std::string& path) {
  const std::string command = "git show '" + rev + ":" + path + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return io_error("cannot run git");
  std::string text;
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe.get())) > 0) text.append(buffer, n);
  const int rc = pclose(pipe.release());
  if (rc != 0) return not_found(path + " does not exist at revision " + rev);
  return text;
}

Result<Ledger> read_ledger(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  Result<Ledger> l = ledger_from_json(*text);
  if (!l.ok()) return invalid_input(path + ": " + l.status().message());
  return l;
}

}  // namespace

Command diff_command() {
  return {"diff", "compare fresh simulations with the golden reports; exit 4 on any change",
          [](CLI::App& app, const GlobalOptions& global) {
            struct Options {
              std::vector<std::string> files;
              std::vector<std::string> ledgers;
              std::string base;
              std::string golden = kGoldenDir;
              bool update = false;
            };
            auto o = std::make_shared<Options>();
            app.add_option("scenarios", o->files, "scenario files (default: scenarios/*.yaml)");
            app.add_option("--ledgers", o->ledgers, "compare two ledger JSON files: BEFORE AFTER")
                ->expected(2);
            app.add_option("--base", o->base, "compare with the goldens of this git revision");
            app.add_option("--golden", o->golden, "directory of the golden reports");
            app.add_flag("--update", o->update, "rewrite the golden reports instead of failing");
            return [o, &global]() -> ExitCode {
              Diagnostics diags;
              if (!o->ledgers.empty()) {
                Result<Ledger> before = read_ledger(o->ledgers[0]);
                Result<Ledger> after = read_ledger(o->ledgers[1]);
                if (!before.ok() || !after.ok()) {
                  diags.error({}, (!before.ok() ? before : after).status().message());
                  return report_diagnostics(diags);
                }
                const std::vector<LedgerChange> changes = diff_ledgers(*before, *after);
                std::fputs(render_diff(after->scenario, changes).c_str(), stdout);
                return changes.empty() ? kExitOk : kExitCheckFailed;
              }
              std::optional<Workspace> ws = open_workspace(global, diags);
              if (!ws) return report_diagnostics(diags);
              int changed = 0;
              int compared = 0;
              for (const std::string& f : scenario_files(o->files)) {
                std::optional<Scenario> s = load_scenario(f, ws->gpus, diags);
                if (!s || !diags.empty()) continue;
                std::optional<SimulationConstants> constants =
                    choose_calibration(*ws, *s, "", diags);
                if (!constants) continue;
                SimulationInputs inputs{ws->gpus, ws->models, *constants};
                std::optional<Ledger> fresh = simulate_scenario(*s, inputs, diags);
                if (!fresh || !diags.empty()) continue;
                const std::string path = golden_path(o->golden, s->name, ".json");
                Result<Ledger> golden = [&]() -> Result<Ledger> {
                  if (o->base.empty()) return read_ledger(path);
                  Result<std::string> text = git_show(o->base, path);
                  if (!text.ok()) return text.status();
                  return ledger_from_json(*text);
                }();
                ++compared;
                if (!golden.ok()) {
                  std::printf("## %s: no golden report (%s)\n\n", s->name.c_str(),
                              golden.status().message().c_str());
                  ++changed;
                } else {
                  const std::vector<LedgerChange> changes = diff_ledgers(*golden, *fresh);
                  if (changes.empty()) continue;
                  std::fputs(render_diff(s->name, changes).c_str(), stdout);
                  ++changed;
                }
                if (o->update && o->base.empty()) write_golden(*ws, f, o->golden, diags);
              }
              if (!diags.empty()) return report_diagnostics(diags);
              std::printf("%d of %d scenarios changed%s\n", changed, compared,
                          changed > 0 && o->update ? "; goldens rewritten" : "");
              return changed == 0 || o->update ? kExitOk : kExitCheckFailed;
            };
          }};
}

}  // namespace gpumem::cli
