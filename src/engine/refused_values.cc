#include "engine/refused_values.h"

#include <string>

namespace gpumem {

void refuse_values(const FlagValues& v, std::span<const RefusedValue> table, Diagnostics& diags) {
  for (const RefusedValue& r : table) {
    if (v.string(r.flag) != r.value) continue;
    diags.error(*v.location(r.flag), std::string(r.flag) + " " + std::string(r.value) +
                                         " is not modelled: " + std::string(r.why));
  }
}

}  // namespace gpumem
