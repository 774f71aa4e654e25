#include "cli/output_guard.h"

#include <sys/stat.h>

#include <filesystem>

namespace gpumem::cli {

bool output_allowed(const std::string& option, const std::string& output,
                    const std::vector<std::string>& inputs, Diagnostics& diags) {
  if (output.empty()) return true;
  struct stat st {};
  if (::lstat(output.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    const char* kind = S_ISLNK(st.st_mode)    ? "a symbolic link"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                                              : "a device or special file";
    diags.error({}, option + " " + output + ": is " + kind +
                        "; gpumem replaces only regular files (remove it or choose another name)");
    return false;
  }
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!input.empty() && std::filesystem::equivalent(output, input, ec) && !ec) {
      diags.error({}, option + " " + output + ": is the input " + input +
                          "; writing there would replace it (choose another output file)");
      return false;
    }
  }
  return true;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path().string());
  }
  return out;
}

}  // namespace gpumem::cli
