#include "cli/scenario_set.h"

#include <algorithm>
#include <filesystem>

#include "core/directory.h"
#include "core/file_name.h"

namespace gpumem::cli {

std::vector<std::string> scenario_files(const std::vector<std::string>& files) {
  if (!files.empty()) return files;
  std::vector<std::string> out;
  if (Result<std::vector<std::filesystem::path>> entries = list_directory(kScenarioDir);
      entries.ok()) {
    for (const std::filesystem::path& p : *entries) {
      if (p.extension() == ".yaml") out.push_back(p.string());
    }
  }
  return out;
}

Result<std::string> golden_path(const std::string& golden_dir, const std::string& scenario_name,
                                const std::string& extension) {
  return file_in_directory(golden_dir, scenario_name, extension, "the scenario's name");
}

}  // namespace gpumem::cli
