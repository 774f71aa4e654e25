// gpumem: command-line entry point. Parses the subcommand, runs it, and maps its result to
// the exit codes of core/exit_codes.h. The only place that exits.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/command.h"

namespace gpumem::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      simulate_command(), sweep_command(),   validate_command(),  report_command(),
      diff_command(),     check_command(),   calibrate_command(), catalog_command(),
      plot_command(),     explain_command(),
  };
  return kCommands;
}

}  // namespace gpumem::cli

int main(int argc, char** argv) {
  using namespace gpumem;
  using namespace gpumem::cli;
  CLI::App app{"gpumem: GPU memory of LLM serving start-up, step by step, per GPU"};
  app.require_subcommand(0, 1);
  GlobalOptions global;
  app.add_option("--model-dir", global.model_dir,
                 "catalog directory holding llm/, gpu/ and calibration/ "
                 "(default: $GPUMEM_MODEL_DIR, else the bundled model/)");
  app.add_subcommand("help", "list the subcommands");
  std::vector<std::pair<CLI::App*, std::function<ExitCode()>>> handlers;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    handlers.emplace_back(sub, c.setup(*sub, global));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  try {
    for (auto& [sub, run] : handlers) {
      if (sub->parsed()) return run();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumem: internal error: %s\n", e.what());
    return kExitInternal;
  }
  std::printf("usage: gpumem <command> [options]   (gpumem <command> --help for its options)\n\n");
  for (const Command& c : commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  return kExitOk;
}
