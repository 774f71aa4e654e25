// The one parser for sizes written by people: "96GB", "97887MiB", "0.5GiB".
//
// Units, case-sensitive: B; KB, MB, GB, TB (powers of 1000); KiB, MiB, GiB, TiB (powers of
// 1024). The number is a plain decimal (digits, optional fraction), optionally followed by
// spaces before the unit. A number without a unit, a sign, an exponent or an unknown unit is
// an error whose message says what to write instead.
//
// Rounding: the value is computed exactly (decimal mantissa times the unit, in 128-bit
// integers) and rounded to the nearest whole byte, halves away from zero: "0.3KiB" is
// 307.2 B -> 307 B, "1.5B" -> 2 B. Sizes above 2^63-1 bytes are errors.
#ifndef GPUMEM_CORE_SIZE_PARSE_H_
#define GPUMEM_CORE_SIZE_PARSE_H_

#include <string_view>

#include "core/status.h"
#include "core/units.h"

namespace gpumem {

// On error the Status message has no location; callers prefix `file:line:col: `.
Result<Bytes> parse_size(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_CORE_SIZE_PARSE_H_
