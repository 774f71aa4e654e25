// The scenarios a command works on: the files given, or every *.yaml of scenarios/, and
// where each one's golden report lives (reports/scenarios/<name>.{md,json}).
#ifndef GPUMEM_CLI_SCENARIO_SET_H_
#define GPUMEM_CLI_SCENARIO_SET_H_

#include <string>
#include <vector>

#include "core/status.h"

namespace gpumem::cli {

inline constexpr char kScenarioDir[] = "scenarios";
inline constexpr char kGoldenDir[] = "reports/scenarios";

// `files` if not empty, else scenarios/*.yaml sorted by name.
std::vector<std::string> scenario_files(const std::vector<std::string>& files);

// <golden_dir>/<scenario name> + extension (".json" or ".md"); an error when the name is not
// a safe file name (core/file_name.h), so no scenario writes outside <golden_dir>.
Result<std::string> golden_path(const std::string& golden_dir, const std::string& scenario_name,
                                const std::string& extension);

}  // namespace gpumem::cli

#endif  // GPUMEM_CLI_SCENARIO_SET_H_
