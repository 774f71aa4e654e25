// The range a figure read from a log must lie in before gpumem takes it: the same bounds a
// scenario's values have, so that nothing a log says can reach the engine models as a
// number a scenario could not give them. A memory figure is a byte count of at most 2^48
// bytes (262,144 GiB; engine/flag_table.cc holds byte-count flags to it); a count (tokens,
// blocks, requests, batch sizes) or a ratio is at most 2^31 - 1, the bound of an integer
// flag; a count is whole and not negative; only differences and vLLM's KV budget may be
// negative (it is below zero when the profile leaves nothing for the cache); nothing may
// be infinite or not a number.
#ifndef GPUMEM_EXPLAIN_FIGURE_BOUNDS_H_
#define GPUMEM_EXPLAIN_FIGURE_BOUNDS_H_

#include <optional>
#include <string>
#include <string_view>

#include "explain/log_scan.h"
#include "explain/startup_log.h"

namespace gpumem {

inline constexpr double kMaxFigureGib = 262144.0;        // 2^48 bytes
inline constexpr double kMaxFigureCount = 2147483647.0;  // 2^31 - 1

// Why `n`, printed as `printed`, cannot be a figure of `what` in `unit`; nothing when it
// can. `negative_allowed`: the quantity is a difference or a budget that may fall below 0.
std::optional<std::string> figure_out_of_bounds(std::string_view what, FigureUnit unit,
                                                bool negative_allowed, const PrintedNumber& n,
                                                std::string_view printed);

// The same for a logged figure of `q`.
std::optional<std::string> figure_out_of_bounds(Quantity q, const PrintedNumber& n,
                                                std::string_view printed);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_FIGURE_BOUNDS_H_
