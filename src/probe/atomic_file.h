// Writing a result file so that readers never see half of it.
//
// The content goes to a temporary file next to the target, is flushed to disk, and is then
// renamed over the target (rename(2) is atomic within a file system). A probe rank killed
// mid-write leaves at most a stray "*.tmp.<pid>" file, never a truncated trace.
#ifndef GPUMEM_PROBE_ATOMIC_FILE_H_
#define GPUMEM_PROBE_ATOMIC_FILE_H_

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpumem::probe {

Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

// `value` as indented JSON, written atomically. Bytes that are not UTF-8 (a log line, a
// driver's message) are replaced by U+FFFD rather than failing the whole file.
Status write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value);

// The whole file, or kIoError / kNotFound naming it.
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_ATOMIC_FILE_H_
