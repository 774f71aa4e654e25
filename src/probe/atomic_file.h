// Writing a result file so that readers never see half of it.
//
// The content goes to a temporary file next to the target, is flushed to disk, and is then
// renamed over the target (rename(2) is atomic within a file system). A probe rank killed
// mid-write leaves at most a stray "*.tmp.<pid>" file, never a truncated trace.
#ifndef GPUMEM_PROBE_ATOMIC_FILE_H_
#define GPUMEM_PROBE_ATOMIC_FILE_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpumem::probe {

Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The whole file, or kIoError / kNotFound naming it.
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_ATOMIC_FILE_H_
