// Reading inputs and writing outputs, with one set of rules for every command.
//
// Writing: an output file is written so that readers see either the old file or the whole new
// one — the text goes to a temporary file next to the target, which is then renamed over it.
// A failure, or SIGINT/SIGTERM/SIGHUP/SIGQUIT arriving meanwhile, leaves no partial file and
// no temporary behind. Only regular files are replaced: a target that is a symbolic link, a
// FIFO, a device or a directory is refused (renaming over it would silently turn it into a
// regular file, or write somewhere the user did not name).
//
// Reading: every input goes through read_file with its kind, whose size cap is documented in
// the README ("Input limits"): an input larger than its cap (or an endless one, /dev/zero) is
// refused with the cap in the message before it is parsed. FIFOs and process substitution
// (`<(kubectl logs ...)`) are read like files. A missing file, a symbolic-link loop, a
// directory on the way that cannot be searched and a path too long each have their own message.
#ifndef GPUMEM_CORE_ATOMIC_FILE_H_
#define GPUMEM_CORE_ATOMIC_FILE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpumem {

Status write_file_atomically(const std::string& path, const std::string& text);

// Several outputs, all or nothing: every file is written to its temporary first, and only
// when all were written are they renamed into place (a command that writes a calibration file
// and its reports leaves either all of them new or none).
Status write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

class PendingTemporary;

// One output written to its temporary and not yet renamed into place; removed when dropped
// uncommitted. An output too large to hold (a sweep's rows) is opened empty and appended to.
class StagedFile {
 public:
  static Result<StagedFile> stage(const std::string& path, const std::string& text);
  // An empty temporary for `path`, open for append().
  static Result<StagedFile> open(const std::string& path);
  Status append(std::string_view text);
  // Syncs and closes the temporary (if still open), then renames it over the target.
  Status commit();

  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&&) = delete;
  ~StagedFile();

 private:
  StagedFile() = default;
  Status close();

  std::string path_;
  std::string temp_;  // empty once committed
  int fd_ = -1;       // the temporary, while open
  std::unique_ptr<PendingTemporary> registration_;
};

// What an input is, for its size cap.
enum class InputKind {
  kScenario,     // a scenario YAML: 1 MiB
  kCatalog,      // a model/GPU/calibration catalog entry: 4 MiB
  kModelConfig,  // config.json, hf_quant_config.json, a safetensors index: 64 MiB
  kLog,          // an engine's start-up log: 256 MiB
  kTrace,        // a probe trace or result file: 64 MiB
  kLedger,       // a ledger JSON: 64 MiB
};

struct InputLimit {
  std::size_t max_bytes;
  std::string_view what;  // "a scenario"
};

InputLimit input_limit(InputKind kind);

// The whole contents of a file, at most its kind's cap; kNotFound when it does not exist.
Result<std::string> read_file(const std::string& path, InputKind kind);

// Why `path` cannot be opened, from errno: "no such file", "a symbolic link loop", ...
std::string open_failure(const std::string& path, int error);

}  // namespace gpumem

#endif  // GPUMEM_CORE_ATOMIC_FILE_H_
