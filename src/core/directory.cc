#include "core/directory.h"

#include <algorithm>

#include "core/atomic_file.h"

namespace gpumem {

Result<std::vector<std::filesystem::path>> list_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path());
  }
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return not_found(open_failure(dir, ec.value()));
    return io_error(open_failure(dir, ec.value()));
  }
  // By the paths' text: within one directory it is the order of their names, and it spares
  // path::compare, which splits both paths into components on every comparison (a catalog of a
  // hundred folders spent more sorting than reading them).
  std::sort(out.begin(), out.end(),
            [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
  return out;
}

bool path_exists(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::exists(p, ec) && !ec;
}

bool is_directory_path(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec) && !ec;
}

bool is_regular_file_path(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && !ec;
}

}  // namespace gpumem
