// `--min-headroom SIZE`: what "starts" means for simulate's verdict and advice, sweep's
// --best and plan. A start-up starts safely when every GPU completes it and keeps at least
// SIZE free at its tightest step (simulate/fit_advice.h starts_safely); without the option,
// completing is enough. SIZE needs a unit ("2GiB", "512MiB"), as every size gpumem reads.
#ifndef GPUMEM_CLI_HEADROOM_OPTION_H_
#define GPUMEM_CLI_HEADROOM_OPTION_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/diagnostics.h"
#include "core/units.h"

namespace gpumem::cli {

void add_min_headroom_option(CLI::App& app, std::string& text);

// The size `text` gives (zero when empty), or nothing after an error naming the option.
std::optional<Bytes> read_min_headroom(const std::string& text, Diagnostics& diags);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_HEADROOM_OPTION_H_
