#include "cli/scenario_set.h"

#include <algorithm>
#include <filesystem>

namespace gpumem::cli {

std::vector<std::string> scenario_files(const std::vector<std::string>& files) {
  if (!files.empty()) return files;
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kScenarioDir, ec)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string golden_path(const std::string& golden_dir, const std::string& scenario_name,
                        const std::string& extension) {
  return (std::filesystem::path(golden_dir) / (scenario_name + extension)).string();
}

}  // namespace gpumem::cli
