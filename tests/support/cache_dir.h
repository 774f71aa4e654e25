// A fresh GPUMEM_CACHE_DIR for one test (catalog/parse_cache.h), restored after it, beside an
// input directory the test fills with the files to be read.
#ifndef GPUMEM_TESTS_SUPPORT_CACHE_DIR_H_
#define GPUMEM_TESTS_SUPPORT_CACHE_DIR_H_

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gpumem {

class CacheDir {
 public:
  explicit CacheDir(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             ("gpumem-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    const char* old = std::getenv("GPUMEM_CACHE_DIR");
    if (old != nullptr) old_ = old;
    ::setenv("GPUMEM_CACHE_DIR", (dir_ / "cache").c_str(), 1);
    std::filesystem::create_directories(dir_ / "input");
  }
  ~CacheDir() {
    if (old_) {
      ::setenv("GPUMEM_CACHE_DIR", old_->c_str(), 1);
    } else {
      ::unsetenv("GPUMEM_CACHE_DIR");
    }
    std::filesystem::remove_all(dir_);
  }
  CacheDir(const CacheDir&) = delete;
  CacheDir& operator=(const CacheDir&) = delete;

  std::string input_dir() const { return (dir_ / "input").string(); }
  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    if (!std::filesystem::exists(dir_ / "cache")) return out;
    for (const auto& e : std::filesystem::directory_iterator(dir_ / "cache")) {
      out.push_back(e.path());
    }
    return out;
  }

 private:
  std::filesystem::path dir_;
  std::optional<std::string> old_;
};

// A cache entry's document (CBOR), to inspect or edit; null when it does not decode.
inline nlohmann::json read_cache_entry(const std::filesystem::path& entry) {
  std::ifstream in(entry, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return nlohmann::json::from_cbor(bytes, true, false);
}

inline void write_cache_entry(const std::filesystem::path& entry, const nlohmann::json& doc) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(doc);
  std::ofstream(entry, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_CACHE_DIR_H_
