// The table of gpumem's subcommands. Each subcommand lives in its own file (cmd_*.cc) and
// registers its options on a CLI11 subcommand; main.cc only builds the table, parses, and
// turns the handler's result into the process exit code.
#ifndef GPUMEM_CLI_COMMAND_H_
#define GPUMEM_CLI_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/exit_codes.h"

namespace gpumem::cli {

struct GlobalOptions {
  std::string model_dir;  // empty: $GPUMEM_MODEL_DIR, else the bundled model/
  // Everything after `--`: a launch command as typed in a shell (launch/launch_command.h),
  // for the commands that take one instead of a scenario file.
  std::vector<std::string> launch;
};

struct Command {
  const char* name;
  const char* summary;  // one line, shown by `gpumem help`
  // Adds the command's options to `app` and returns the function that runs it.
  std::function<std::function<ExitCode()>(CLI::App& app, const GlobalOptions& global)> setup;
};

const std::vector<Command>& commands();

// Registration functions, one per cmd_*.cc.
Command validate_command();
Command simulate_command();
Command sweep_command();
Command catalog_command();
Command report_command();
Command diff_command();
Command check_command();
Command calibrate_command();
Command plot_command();
Command explain_command();
Command scenario_command();
Command export_ops_command();
Command plan_command();

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_COMMAND_H_
