// A launch command quoted in a log: "$ vllm serve meta-llama/Meta-Llama-3-8B -tp 2",
// "python3 -m vllm.entrypoints.openai.api_server --model X", "python3 -m
// sglang.launch_server --model-path X --tp 4". Tokens are split as a POSIX shell would
// (quotes, `--flag=value`); each flag is read against the engine's flag table, so a
// store_true flag takes no value and a list flag takes the numbers after it. A value is
// taken as the engine receives it (explain/shell_value.h): `$((...))` evaluated, vLLM's
// `32K`; one that names a shell variable is left out, and a note says so.
#ifndef GPUMEM_EXPLAIN_COMMAND_LINE_H_
#define GPUMEM_EXPLAIN_COMMAND_LINE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "explain/log_line.h"
#include "explain/startup_log.h"

namespace gpumem {

struct LaunchCommand {
  LogEngine engine = LogEngine::kSglang;
  std::optional<std::string> model;
  std::vector<LoggedFlag> flags;           // flags gpumem's table knows, canonical names
  std::vector<std::string> unknown_flags;  // as written
  std::vector<std::string> notes;          // values the log does not show, and why
  // The release the engine's image tag names ("docker run ... vllm/vllm-openai:v0.10.1"):
  // "0.10.1"; nullopt where no image, or a tag that names none ("latest"), is run.
  std::optional<std::string> image_release;
  // vLLM's Python LLM class (explain/python_call.h) started the engine, not its server.
  bool offline = false;
};

// Nothing when the line's message does not start an SGLang or vLLM server.
std::optional<LaunchCommand> parse_launch_command(const LogLine& line);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_COMMAND_LINE_H_
