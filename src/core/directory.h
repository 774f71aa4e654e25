// Asking the file system about paths without exceptions. std::filesystem's throwing forms
// escape as exit 3 on a symbolic-link loop, an unsearchable directory or a name too long;
// every question gpumem asks goes through these error_code forms instead, and a directory
// that cannot be listed is a Status with the same wording read_file uses.
#ifndef GPUMEM_CORE_DIRECTORY_H_
#define GPUMEM_CORE_DIRECTORY_H_

#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace gpumem {

// The entries directly inside `dir`, sorted by name.
Result<std::vector<std::filesystem::path>> list_directory(const std::string& dir);

// False also when the answer cannot be found out (a loop, no permission).
bool path_exists(const std::filesystem::path& p);
bool is_directory_path(const std::filesystem::path& p);
bool is_regular_file_path(const std::filesystem::path& p);

}  // namespace gpumem

#endif  // GPUMEM_CORE_DIRECTORY_H_
