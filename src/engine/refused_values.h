// Choice values an engine accepts whose start-up memory gpumem does not model.
//
// A flag gpumem models may gain values in a newer release (SGLang v0.5.21's --kv-cache-dtype
// nvfp4, vLLM's turboquant KV layouts). Such a value is in the flag's choices, so argparse's
// "must be one of" never fires on it, and in a table of refused values, so the launch is
// refused naming the value and what it changes rather than simulated as if it were another.
#ifndef GPUMEM_ENGINE_REFUSED_VALUES_H_
#define GPUMEM_ENGINE_REFUSED_VALUES_H_

#include <span>
#include <string_view>

#include "core/diagnostics.h"
#include "engine/flag_table.h"

namespace gpumem {

struct RefusedValue {
  std::string_view flag;   // canonical spelling, as in the flag table
  std::string_view value;  // the choice refused
  std::string_view why;    // what it changes that gpumem does not model
};

// One error per flag of `v` set to a value of `table`, at the value:
// "--kv-cache-dtype nvfp4 is not modelled: <why>".
void refuse_values(const FlagValues& v, std::span<const RefusedValue> table, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_REFUSED_VALUES_H_
