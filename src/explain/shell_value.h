// A flag's value in a pasted launch command as the engine receives it: what the shell makes
// of the word first — an arithmetic expansion `$((32 * 1024))` evaluated as bash does, in
// integers (+ - * / % and parentheses, division truncating toward zero) — then what vLLM's
// argument parser makes of a human-readable count: `32k` is 32,000 and `32K` 32,768 (vllm
// v0.10.2 engine/arg_utils.py human_readable_int, the type of --max-model-len and
// --max-num-batched-tokens). A word that names a shell variable (`$MAX_LEN`, `${MODEL}`) is
// a value the log does not show: it is reported as unknown, not read as text.
#ifndef GPUMEM_EXPLAIN_SHELL_VALUE_H_
#define GPUMEM_EXPLAIN_SHELL_VALUE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpumem {

// The value of `$((expr))`, or nothing when `word` is not one or cannot be evaluated (a
// variable inside, division by zero, a result outside 64 bits).
std::optional<std::int64_t> shell_arithmetic(std::string_view word);

// vLLM's human_readable_int: "32k", "25.6k", "32K", "1M"; nothing for a plain number or text.
std::optional<std::int64_t> human_readable_int(std::string_view word);

// True for a word holding an unexpanded shell variable: "$X", "${X}", "x$Y".
bool names_shell_variable(std::string_view word);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_SHELL_VALUE_H_
