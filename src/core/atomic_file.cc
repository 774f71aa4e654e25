#include "core/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpumem {

Status write_file_atomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) return io_error(path + ": cannot write: " + std::strerror(errno));
  // mkstemp creates the file 0600; outputs are ordinary files, readable by others.
  ::fchmod(fd, 0644);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      std::remove(temp.c_str());
      return io_error(path + ": cannot write: " + why);
    }
    written += static_cast<size_t>(n);
  }
  // The descriptor is closed whether or not fsync worked.
  int failed = ::fsync(fd) != 0 ? errno : 0;
  if (::close(fd) != 0 && failed == 0) failed = errno;
  if (failed != 0) {
    std::remove(temp.c_str());
    return io_error(path + ": cannot write: " + std::strerror(failed));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temp.c_str());
    return io_error(path + ": cannot write: " + why);
  }
  return {};
}

Result<std::string> read_file(const std::string& path) {
  // An ifstream opens a directory on Linux and reads it as empty.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return invalid_input(path + ": is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path, ec)) return not_found(path + ": no such file");
    return io_error(path + ": cannot read the file");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return io_error(path + ": cannot read the file");
  return buffer.str();
}

}  // namespace gpumem
