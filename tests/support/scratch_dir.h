// Where a test writes its scratch files. ctest runs every test case as its own process, several
// at once, so a fixed name under the temporary directory is shared by concurrent processes: one
// truncates a file while another reads it (CI once read an empty config.json that way). Each
// process gets a directory of its own, named by its process id.
#ifndef GPUMEM_TESTS_SUPPORT_SCRATCH_DIR_H_
#define GPUMEM_TESTS_SUPPORT_SCRATCH_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <string>

namespace gpumem {

// <temp>/gpumem-test-<pid>/, created on first use.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path made =
        std::filesystem::temp_directory_path() / ("gpumem-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(made);
    return made;
  }();
  return dir;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_SCRATCH_DIR_H_
