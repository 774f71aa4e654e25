// vLLM's offline entry point quoted in a log: `llm = LLM(model="...", tensor_parallel_size=2,
// gpu_memory_utilization=0.95, ...)`, which posts paste above the error it ends with. Its
// keyword arguments are EngineArgs fields, read as the engine-config dumps are
// (logged_flags.h): `tensor_parallel_size=2` is `--tensor-parallel-size 2`, a keyword no flag
// table knows is named in a note. The reader joins the call's lines (log_reader.cc) up to its
// closing parenthesis; the typographic quotes a post's editor puts in (“ ” ‘ ’) are read as
// Python's, and digit separators (30_000) as Python reads them.
#ifndef GPUMEM_EXPLAIN_PYTHON_CALL_H_
#define GPUMEM_EXPLAIN_PYTHON_CALL_H_

#include <optional>
#include <string_view>

#include "explain/command_line.h"
#include "explain/log_line.h"

namespace gpumem {

// Whether `message` opens an `LLM(` call (a name ending in LLM, as in `vllm.LLM(`, followed by
// its parenthesis; `AsyncLLM(` and `MyLLM(` are other names).
bool opens_llm_call(std::string_view message);

// The call's model and flags; nothing when `line` holds no `LLM(` call.
std::optional<LaunchCommand> parse_llm_call(const LogLine& line);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_PYTHON_CALL_H_
