// Writing an output file so that readers see either the old file or the whole new one:
// the text goes to a temporary file next to the target, which is then renamed over it. A
// failure leaves no partial file behind.
#ifndef GPUMEM_CORE_ATOMIC_FILE_H_
#define GPUMEM_CORE_ATOMIC_FILE_H_

#include <string>

#include "core/status.h"

namespace gpumem {

Status write_file_atomically(const std::string& path, const std::string& text);

// The whole contents of a file; kNotFound when it does not exist. Every input reader goes
// through here, so a directory or an unreadable file gets the same message everywhere.
Result<std::string> read_file(const std::string& path);

}  // namespace gpumem

#endif  // GPUMEM_CORE_ATOMIC_FILE_H_
