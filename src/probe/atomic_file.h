// Probe results written so that readers never see half of them: JSON through
// core/atomic_file.h (a temporary file next to the target, flushed, then renamed over it).
#ifndef GPUMEM_PROBE_ATOMIC_FILE_H_
#define GPUMEM_PROBE_ATOMIC_FILE_H_

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/status.h"

namespace gpumem::probe {

// `value` as indented JSON, written atomically. Bytes that are not UTF-8 (a log line, a
// driver's message) are replaced by U+FFFD rather than failing the whole file.
Status write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_ATOMIC_FILE_H_
