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
#include "cli/simulated_scenario.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "core/child_process.h"
#include "report/ledger_diff.h"
#include "runtime/ledger_json.h"
#include "simulate/simulate.h"

namespace gpumem::cli {

bool write_golden(const Workspace& ws, const std::string& file, const std::string& golden_dir,
                  Diagnostics& diags);

namespace {

// The commit `rev` names, checked by git itself. git runs from an argument vector, never a
// shell, and a revision that starts with '-' is refused before git sees it as an option.
Result<std::string> resolve_revision(const std::string& rev) {
  if (rev.empty() || rev.front() == '-' || rev.find('\0') != std::string::npos) {
    return invalid_input("--base '" + rev + "' is not a git revision");
  }
  Result<ChildResult> git =
      run_child({"git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"});
  if (!git.ok()) return git.status();
  if (git->exit_code != 0 || git->out.size() < 41) {
    return invalid_input("--base '" + rev + "' names no commit of this git repository");
  }
  return git->out.substr(0, git->out.find('\n'));
}

// The text of PATH at `commit` (a full hash from resolve_revision).
Result<std::string> git_show(const std::string& commit, const std::string& rev,
                             const std::string& path) {
  Result<ChildResult> git = run_child({"git", "show", commit + ":" + path});
  if (!git.ok()) return git.status();
  if (git->exit_code != 0) return not_found(path + " does not exist at revision " + rev);
  return git->out;
}

Result<Ledger> read_ledger(const std::string& path) {
  Result<std::string> text = read_file(path, InputKind::kLedger);
  if (!text.ok()) return text.status();
  return ledger_from_json(path, *text);
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
              std::string base_commit;
              if (!o->base.empty()) {
                Result<std::string> commit = resolve_revision(o->base);
                if (!commit.ok()) {
                  diags.error({}, commit.status().message());
                  return report_diagnostics(diags);
                }
                base_commit = *commit;
              }
              const std::vector<std::string> files = scenario_files(o->files);
              if (files.empty()) {
                // Run outside the repository it would have compared nothing and said "0 of 0".
                diags.error({},
                            "no scenarios to compare: give scenario files, or run where "
                            "scenarios/*.yaml and their goldens (" +
                                o->golden + ") are");
                return report_diagnostics(diags);
              }
              int changed = 0;
              int compared = 0;
              for (const std::string& f : files) {
                // As `gpumem report` wrote the golden: fit advice included.
                std::optional<SimulatedScenario> sim = simulate_file(*ws, f, "", diags);
                if (!sim || !diags.empty()) continue;
                const Scenario* s = &sim->scenario;
                const Ledger* fresh = &sim->ledger;
                const Result<std::string> path = golden_path(o->golden, s->name, ".json");
                if (!path.ok()) {
                  diags.error({f, 0, 0}, path.status().message());
                  continue;
                }
                Result<Ledger> golden = [&]() -> Result<Ledger> {
                  if (o->base.empty()) return read_ledger(*path);
                  Result<std::string> text = git_show(base_commit, o->base, *path);
                  if (!text.ok()) return text.status();
                  return ledger_from_json(o->base + ":" + *path, *text);
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
