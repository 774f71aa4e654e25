// Names from inputs that become file names — a scenario's name becomes its golden report
// `reports/scenarios/<name>.json`, a GPU's alias its calibration report — are held to one
// documented safe set, so that no input can make gpumem write outside the directory the user
// chose (`../x`, `/abs/x`, a name with a newline or a NUL).
//
// The safe set: 1 to 128 characters from A-Z a-z 0-9 and `.`, `_`, `+`, `-`, starting with a
// letter or a digit (so never `.`, `..` or a hidden file, and never an option to a program).
#ifndef GPUMEM_CORE_FILE_NAME_H_
#define GPUMEM_CORE_FILE_NAME_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace gpumem {

inline constexpr size_t kMaxFileNameLength = 128;

// kInvalidInput naming `what` ("the scenario's name") and the first character outside the set.
Status check_file_name(std::string_view name, std::string_view what);

// `dir/<name><extension>`, once `name` passed check_file_name and the joined path, made
// lexically normal, is checked to lie directly inside `dir`.
Result<std::string> file_in_directory(const std::string& dir, std::string_view name,
                                      std::string_view extension, std::string_view what);

}  // namespace gpumem

#endif  // GPUMEM_CORE_FILE_NAME_H_
