// Turning what a log states about an engine's configuration into that engine's own flags,
// spelled as on its command line: `tp_size=4` in SGLang's ServerArgs dump is `--tp-size 4`,
// `'max_model_len': 4096` in vLLM's non-default args is `--max-model-len 4096`,
// `tensor_parallel_size=2` in its engine-config dump is `--tensor-parallel-size 2`. Only
// flags in the engine model's flag table (engine/sglang/flags.h, engine/vllm/flags.h) are
// kept: everything else a dump prints (ports, paths, logging) does not change start-up
// memory. The model name is not a flag here; callers take it from `model_key`.
#ifndef GPUMEM_EXPLAIN_LOGGED_FLAGS_H_
#define GPUMEM_EXPLAIN_LOGGED_FLAGS_H_

#include <optional>
#include <string>
#include <string_view>

#include "engine/flag_table.h"
#include "explain/python_literal.h"
#include "explain/startup_log.h"

namespace gpumem {

// The table entry of `flag` (a name or alias; vLLM reads underscores as dashes).
const FlagSpec* find_flag_spec(LogEngine engine, std::string_view flag);

// True for a dump key that names the model ("model_path", "model").
bool is_model_key(LogEngine engine, std::string_view key);

// The flag a dump's key names ("kv_offloading_size" -> "--kv-offloading-size").
std::string flag_name_for_key(LogEngine engine, std::string_view key);

// The flag a dump's `key=value` states, or nothing when the key is not a modelled or
// accepted flag, or its value is None (unset) or False (a store_true flag left off). A
// value of the wrong type is kept as printed, for the scenario's reader to refuse.
std::optional<LoggedFlag> flag_from_python(LogEngine engine, std::string_view key,
                                           const PyValue& value, int line,
                                           const std::string& source);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOGGED_FLAGS_H_
