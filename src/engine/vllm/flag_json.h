// vLLM's JSON-valued flags: --compilation-config (or -O), --limit-mm-per-prompt and
// --speculative-config, each read into EngineFlags with the keys of vLLM's config class. A key
// the class lacks, a value of the wrong type or a method gpumem does not model is an error at
// the flag's value, with a did-you-mean where one is near.
#ifndef GPUMEM_ENGINE_VLLM_FLAG_JSON_H_
#define GPUMEM_ENGINE_VLLM_FLAG_JSON_H_

#include "core/diagnostics.h"
#include "engine/flag_table.h"
#include "engine/vllm/flags.h"

namespace gpumem::vllm {

// vllm config/compilation.py CompilationConfig: the fields that change memory; a bare number
// is the optimization level.
void read_compilation_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags);

// --limit-mm-per-prompt, as JSON or the older "image=1,video=0".
void read_mm_limits(const FlagValues& v, EngineFlags& f, Diagnostics& diags);

// vllm config/speculative.py SpeculativeConfig: the method, the draft and the token count.
void read_speculative_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_FLAG_JSON_H_
