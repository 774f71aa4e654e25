#include "cli/release_option.h"

#include "engine/release_spelling.h"

namespace gpumem::cli {

void add_engine_version_option(CLI::App& app, std::string& release, const std::string& help) {
  app.add_option("--engine-version", release, help)->check([](const std::string& text) {
    return release_spelling_error(text);
  });
}

}  // namespace gpumem::cli
