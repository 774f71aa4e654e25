// What an output option may name, checked before a command reads or computes anything: not
// one of the command's own inputs (through any path: `-o scenario.yaml` must not replace the
// scenario it simulates), and not something other than a regular file (a symbolic link, a
// FIFO, a device or a directory, which an atomic write would silently turn into a regular
// file; core/atomic_file.h refuses them again at the write).
#ifndef GPUMEM_CLI_OUTPUT_GUARD_H_
#define GPUMEM_CLI_OUTPUT_GUARD_H_

#include <string>
#include <vector>

#include "core/diagnostics.h"

namespace gpumem::cli {

// False, with the reason in `diags`, when `output` (given with `option`, "-o") may not be
// written; true when it is empty (standard output) or may be.
bool output_allowed(const std::string& option, const std::string& output,
                    const std::vector<std::string>& inputs, Diagnostics& diags);

// The entries directly inside `dir` (a probe run's traces and scenario), as inputs for the
// check above; empty when it cannot be listed.
std::vector<std::string> files_in(const std::string& dir);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_OUTPUT_GUARD_H_
