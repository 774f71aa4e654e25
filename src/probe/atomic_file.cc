#include "probe/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpumem::probe {

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return io_error(fmt::format("cannot create {}: {}", tmp.string(), std::strerror(errno)));
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return io_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(err)));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return io_error(fmt::format("cannot flush {}: {}", tmp.string(), std::strerror(err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return io_error(
        fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), std::strerror(err)));
  }
  return Status::ok_status();
}

Status write_json_atomically(const std::filesystem::path& path, const nlohmann::json& value) {
  return write_file_atomically(
      path, value.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(fmt::format("cannot open {}", path.string()));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return io_error(fmt::format("cannot read {}", path.string()));
  return buf.str();
}

}  // namespace gpumem::probe
