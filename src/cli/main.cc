// gpumem: command-line entry point. Parses the subcommand, runs it, and maps its result to
// the exit codes of core/exit_codes.h. The only place that exits.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>

#include "cli/command.h"
#include "engine/engine_model.h"

namespace gpumem::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      simulate_command(), sweep_command(),   validate_command(),  report_command(),
      diff_command(),     check_command(),   calibrate_command(), catalog_command(),
      plot_command(),     explain_command(), scenario_command(),  export_ops_command(),
      plan_command(),
  };
  return kCommands;
}

// What was printed must have reached standard output (`gpumem simulate X > /dev/full` loses
// it all): a write error there is reported and fails the command, whatever it found.
int finish_output(int code) {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int error = errno;
    std::fprintf(
        stderr, "gpumem: cannot write to standard output: %s\n",
        error != 0 ? std::strerror(error) : "a write failed (disk full, or the reader gone)");
    return code == kExitInternal ? kExitInternal : kExitBadInput;
  }
  return code;
}

}  // namespace gpumem::cli

int main(int argc, char** argv) {
  using namespace gpumem;
  using namespace gpumem::cli;
  // Output to a file or a pipe is buffered whole (up to 1 MiB), so that a failing write is
  // seen at the final flush with its reason; a terminal keeps its line buffering.
  static std::array<char, 1 << 20> stdout_buffer;
  if (::isatty(STDOUT_FILENO) == 0) {
    std::setvbuf(stdout, stdout_buffer.data(), _IOFBF, stdout_buffer.size());
  }
  // A launch command after `--` is kept whole, never parsed as gpumem's own options.
  GlobalOptions global;
  int own_args = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      own_args = i;
      global.launch.assign(argv + i + 1, argv + argc);
      break;
    }
  }
  CLI::App app{"gpumem: GPU memory of LLM serving start-up, step by step, per GPU"};
  app.require_subcommand(0, 1);
  app.add_option("--model-dir", global.model_dir,
                 "catalog directory holding llm/, gpu/ and calibration/ "
                 "(default: $GPUMEM_MODEL_DIR, else the bundled model/)");
  app.add_subcommand("help", "list the subcommands");
  // gpumem's version, its commit, and the engine releases it models.
  std::string version = std::string("gpumem ") + GPUMEM_VERSION + " (commit " + GPUMEM_COMMIT + ")";
  for (const EngineModel* e : engine_models()) {
    version += "\n  " + std::string(e->title()) + " " + e->releases_modelled();
  }
  app.set_version_flag("--version", version);
  std::vector<std::pair<CLI::App*, std::function<ExitCode()>>> handlers;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    handlers.emplace_back(sub, c.setup(*sub, global));
  }
  try {
    app.parse(own_args, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  int code = kExitOk;
  bool ran = false;
  try {
    for (auto& [sub, run] : handlers) {
      if (sub->parsed()) {
        code = run();
        ran = true;
        break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumem: internal error: %s\n", e.what());
    return kExitInternal;
  }
  if (!ran) {
    std::printf(
        "usage: gpumem <command> [options]   (gpumem <command> --help for its options)\n\n");
    for (const Command& c : commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  }
  return finish_output(code);
}
