// `--engine-version RELEASE`, as simulate, scenario, plan and explain take it: the text is
// checked for a release number's spelling when the command line is parsed (exit 2 with the
// option's name), and which releases an engine models is left to that engine's reader.
#ifndef GPUMEM_CLI_RELEASE_OPTION_H_
#define GPUMEM_CLI_RELEASE_OPTION_H_

#include <CLI/CLI.hpp>
#include <string>

namespace gpumem::cli {

void add_engine_version_option(CLI::App& app, std::string& release, const std::string& help);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_RELEASE_OPTION_H_
