// Flags an engine's newest release takes and its older releases did not. An engine's flag table
// is read from its newest readable source, so without these a command naming a flag that came
// later than the release it is simulated at would be read as if that release had it; the
// engine's argparse stops on it ("unrecognized arguments"), and the command is likely of a newer
// release whose memory rules differ.
#ifndef GPUMEM_ENGINE_ADDED_FLAGS_H_
#define GPUMEM_ENGINE_ADDED_FLAGS_H_

#include <functional>
#include <span>
#include <string_view>

#include "core/diagnostics.h"
#include "engine/flag_table.h"

namespace gpumem {

struct AddedFlag {
  std::string_view name;
  // The first release that takes it; where the sources only bound it from below (absent from
  // one release's parser, present in a later one), the first release it may be in.
  std::string_view added_in;
  bool bound_only = false;  // added_in is that lower bound
};

// Reports each added flag `v` holds at a release `before(added_in)` says precedes it: that
// `title` `release` has no such flag.
void check_added_flags(const FlagValues& v, std::span<const AddedFlag> flags,
                       std::string_view title, std::string_view release,
                       const std::function<bool(std::string_view)>& before, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_ADDED_FLAGS_H_
