#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <utility>

namespace gpumem {
namespace {

// Temporary files being written. A signal handler may only call async-signal-safe functions,
// so the registry is a fixed table of path buffers claimed with atomics, and the handler
// unlinks the paths that are complete, then lets the signal take its default course.
constexpr size_t kMaxPending = 16;
constexpr size_t kMaxPathBytes = 4096;
enum SlotState : int { kFree, kClaimed, kReady };
std::array<std::array<char, kMaxPathBytes>, kMaxPending> pending_paths;
std::array<std::atomic<int>, kMaxPending> pending_state;
constexpr std::array<int, 4> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void remove_pending_and_reraise(int sig) {
  for (size_t i = 0; i < kMaxPending; ++i) {
    if (pending_state[i].load() == kReady) ::unlink(pending_paths[i].data());
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Installs the handler once, for the signals whose disposition is still the default (a
// caller that handles a signal itself keeps its handler).
void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kCleanupSignals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_pending_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

}  // namespace

// A slot of the registry holding one temporary file's name, released on every path out.
// mkstemp fills in the name inside the slot itself, so the handler sees the real name from
// the moment the file can exist (a name half filled in names no file).
class PendingTemporary {
 public:
  explicit PendingTemporary(std::string name_template) : fallback_(std::move(name_template)) {
    if (fallback_.size() >= kMaxPathBytes) return;  // mkstemp on the fallback fails alike
    for (size_t i = 0; i < kMaxPending; ++i) {
      int expected = kFree;
      if (pending_state[i].compare_exchange_strong(expected, kClaimed)) {
        std::memcpy(pending_paths[i].data(), fallback_.c_str(), fallback_.size() + 1);
        pending_state[i].store(kReady);
        slot_ = i;
        return;
      }
    }
  }
  ~PendingTemporary() {
    if (slot_ < kMaxPending) pending_state[slot_].store(kFree);
  }
  PendingTemporary(const PendingTemporary&) = delete;
  PendingTemporary& operator=(const PendingTemporary&) = delete;

  char* name() { return slot_ < kMaxPending ? pending_paths[slot_].data() : fallback_.data(); }

 private:
  std::string fallback_;  // used when every slot is taken
  size_t slot_ = kMaxPending;
};

namespace {

// Why an existing target must not be replaced, or empty when it may be.
std::string not_a_regular_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};  // absent (or unreadable: rename will say)
  const char* kind = S_ISREG(st.st_mode)                          ? nullptr
                     : S_ISLNK(st.st_mode)                        ? "a symbolic link"
                     : S_ISDIR(st.st_mode)                        ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "a special file";
  if (kind == nullptr) return {};
  return fmt::format(
      "{}: is {}; gpumem replaces only regular files (remove it or choose another name)", path,
      kind);
}

}  // namespace

StagedFile::~StagedFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : path_(std::move(other.path_)),
      temp_(std::exchange(other.temp_, {})),
      fd_(std::exchange(other.fd_, -1)),
      registration_(std::move(other.registration_)) {}

Result<StagedFile> StagedFile::open(const std::string& path) {
  namespace fs = std::filesystem;
  if (std::string why = not_a_regular_file(path); !why.empty()) return invalid_input(why);
  install_cleanup_handlers();
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  auto temporary = std::make_unique<PendingTemporary>(
      (dir / ("." + target.filename().string() + ".XXXXXX")).string());
  const int fd = mkstemp(temporary->name());
  if (fd < 0) return io_error(path + ": cannot write: " + std::strerror(errno));
  StagedFile staged;
  staged.path_ = path;
  staged.temp_ = temporary->name();
  staged.fd_ = fd;
  staged.registration_ = std::move(temporary);
  // mkstemp creates the file 0600; outputs are ordinary files, readable by others.
  ::fchmod(fd, 0644);
  return staged;
}

Result<StagedFile> StagedFile::stage(const std::string& path, const std::string& text) {
  Result<StagedFile> staged = open(path);
  if (!staged.ok()) return staged.status();
  GPUMEM_RETURN_IF_ERROR(staged->append(text));
  GPUMEM_RETURN_IF_ERROR(staged->close());
  return staged;
}

Status StagedFile::append(std::string_view text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path_ + ": cannot write: " + std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  return {};
}

Status StagedFile::close() {
  if (fd_ < 0) return {};
  // The descriptor is closed whether or not fsync worked.
  int failed = ::fsync(fd_) != 0 ? errno : 0;
  if (::close(fd_) != 0 && failed == 0) failed = errno;
  fd_ = -1;
  if (failed != 0) return io_error(path_ + ": cannot write: " + std::strerror(failed));
  return {};
}

Status StagedFile::commit() {
  GPUMEM_RETURN_IF_ERROR(close());
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    return io_error(path_ + ": cannot write: " + std::strerror(errno));
  }
  temp_.clear();
  return {};
}

Status write_file_atomically(const std::string& path, const std::string& text) {
  Result<StagedFile> staged = StagedFile::stage(path, text);
  if (!staged.ok()) return staged.status();
  return staged->commit();
}

Status write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<StagedFile> staged;
  staged.reserve(files.size());
  for (const auto& [path, text] : files) {
    Result<StagedFile> one = StagedFile::stage(path, text);
    if (!one.ok()) return one.status();  // the staged ones are removed on the way out
    staged.push_back(std::move(*one));
  }
  for (StagedFile& f : staged) {
    if (Status s = f.commit(); !s.ok()) return s;
  }
  return {};
}

InputLimit input_limit(InputKind kind) {
  constexpr size_t kMiB = size_t{1} << 20;
  switch (kind) {
    case InputKind::kScenario:
      return {1 * kMiB, "a scenario"};
    case InputKind::kCatalog:
      return {4 * kMiB, "a catalog entry"};
    case InputKind::kModelConfig:
      return {64 * kMiB, "a model configuration file"};
    case InputKind::kLog:
      return {256 * kMiB, "a log"};
    case InputKind::kTrace:
      return {64 * kMiB, "a probe trace file"};
    case InputKind::kLedger:
      return {64 * kMiB, "a ledger"};
  }
  return {0, "an input"};
}

std::string open_failure(const std::string& path, int error) {
  switch (error) {
    case ENOENT:
      return path + ": no such file";
    case ELOOP:
      return path + ": a symbolic link loop (too many levels of symbolic links)";
    case EACCES:
      return path + ": permission denied (the file, or a directory on its path, is not readable)";
    case ENAMETOOLONG:
      return path + ": the path, or a name in it, is too long";
    case ENOTDIR:
      return path + ": a component of the path is not a directory";
    case EISDIR:
      return path + ": is a directory, not a file";
    default:
      return path + ": cannot read the file: " + std::strerror(error);
  }
}

Result<std::string> read_file(const std::string& path, InputKind kind) {
  const InputLimit limit = input_limit(kind);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return not_found(open_failure(path, error));
    return io_error(open_failure(path, error));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    return invalid_input(path + ": is a directory, not a file");
  }
  const auto too_large = [&] {
    return invalid_input(fmt::format("{}: is larger than the {} MiB {} may have", path,
                                     limit.max_bytes >> 20, limit.what));
  };
  if (S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) > limit.max_bytes) {
    return too_large();
  }
  std::string text;
  std::array<char, 65536> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(fmt::format("{}: cannot read the file: {}", path, std::strerror(errno)));
    }
    if (text.size() + static_cast<size_t>(n) > limit.max_bytes) return too_large();
    text.append(buffer.data(), static_cast<size_t>(n));
  }
  return text;
}

}  // namespace gpumem
