// A serving engine's launch command, as a user types it in a shell, read into the parts of a
// scenario: the engine it starts, the environment it sets, the model it serves, and its
// flags as the scenario's engine args.
//
// The command arrives as the shell split it (argv after gpumem's `--`). Forms read:
//   [env|nohup|exec|time|uv run] [VAR=value ...] vllm serve [MODEL] [flags]
//   [VAR=value ...] python[3] -m vllm.entrypoints.openai.api_server [flags]
//   [VAR=value ...] python[3] -m sglang.launch_server [flags]
//   [VAR=value ...] sglang serve [flags]
//   [sudo] docker|podman run [options] IMAGE [one of the above, or the image's entrypoint's
//   arguments] (launch/container_run.h)
// Flags: `--flag value`, `--flag=value`, bare booleans, `--no-flag`, several values after a
// list flag (`--cuda-graph-bs 1 2 4`), JSON values (`--compilation-config '{...}'`), short
// forms and argparse prefixes (resolved by the engine's flag table, engine/flag_table.h),
// vLLM's dotted keys of a JSON flag (`-cc.cudagraph_mode=FULL`, merged into one object), and
// vLLM's `--config file.yaml` (its keys are flags, in the file's order, and its `model` the
// model unless the command names one; the command line overrides them). A model given
// positionally or with --model / --model-path becomes the scenario's model.
//
// Every token keeps its place, `<launch command>:1:<column>` in the command joined with
// single spaces, so an engine's error points into the command as typed. A form not listed
// is refused, naming the forms that are read.
#ifndef GPUMEM_LAUNCH_LAUNCH_COMMAND_H_
#define GPUMEM_LAUNCH_LAUNCH_COMMAND_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catalog/scenario.h"
#include "core/diagnostics.h"
#include "engine/engine_model.h"

namespace gpumem {

inline constexpr char kLaunchCommandFile[] = "<launch command>";

struct EngineLaunch {
  std::string engine;  // the engine model's name: "vllm", "sglang"
  std::vector<EnvVar> env;
  std::optional<std::string> model;
  SourceLoc model_loc;
  std::vector<EngineArg> args;
  // The release a container image's tag names (launch/container_run.h image_release).
  std::optional<std::string> version;
  SourceLoc version_loc;
  std::string text;  // the command joined with single spaces, as located
};

// `argv` as one shell command line: each token single-quoted where a shell would read it
// otherwise.
std::string shell_command(std::span<const std::string> argv);

// The command line that starts `engine` serving `model` by its first launch form: "vllm serve
// MODEL", "python -m sglang.launch_server --model-path MODEL".
std::vector<std::string> launch_argv(const EngineModel& engine, const std::string& model);

// nullopt after reporting every problem in `diags`.
std::optional<EngineLaunch> read_launch_command(std::span<const std::string> argv,
                                                Diagnostics& diags);

// The command with `flag` set to `value` — its value replaced where the command gives the
// flag (in any spelling the engine accepts), appended otherwise, and flags the new value
// makes obsolete (`removed`) dropped — as a shell command line (tokens quoted as needed).
std::string launch_with_flag(std::span<const std::string> argv, std::string_view flag,
                             std::string_view value, std::span<const std::string> removed);

}  // namespace gpumem

#endif  // GPUMEM_LAUNCH_LAUNCH_COMMAND_H_
