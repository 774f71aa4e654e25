#include "catalog/parse_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "core/atomic_file.h"

namespace gpumem {
namespace {

class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (char c : bytes) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= 0x100000001b3ULL;
    }
    // The length too, so that ("ab", "c") and ("a", "bc") differ.
    const std::uint64_t n = bytes.size();
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (n >> (8 * i)) & 0xff;
      hash_ *= 0x100000001b3ULL;
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

std::string nonempty(const char* s) { return s == nullptr ? std::string() : std::string(s); }

std::string key_text(std::uint64_t key) { return fmt::format("{:016x}", key); }

// nlohmann's CBOR reader recurses once per nested array or map, so an entry of a million nested
// arrays (two megabytes) overflows the stack; this pass, whose callbacks stop the reader, checks
// the nesting first. gpumem's own entries nest at most a few levels.
class NestingCheck : public nlohmann::json_sax<nlohmann::json> {
 public:
  static constexpr int kMaxDepth = 32;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth_ <= kMaxDepth; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return --depth_ >= 0; }
  bool start_array(std::size_t) override { return ++depth_ <= kMaxDepth; }
  bool end_array() override { return --depth_ >= 0; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  int depth_ = 0;
};

}  // namespace

std::string parse_cache_dir() {
  const std::string set = nonempty(std::getenv("GPUMEM_CACHE_DIR"));
  if (set == "off") return {};
  if (!set.empty()) return set;
  std::string xdg = nonempty(std::getenv("XDG_CACHE_HOME"));
  if (xdg.empty()) {
    const std::string home = nonempty(std::getenv("HOME"));
    if (home.empty()) return {};
    xdg = home + "/.cache";
  }
  return xdg + "/gpumem";
}

std::uint64_t parse_cache_key(std::string_view schema, const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files,
                              std::string_view extra) {
  Fnv1a h;
  h.add(schema);
  struct stat self {};
  if (::stat("/proc/self/exe", &self) == 0) {
    h.add(std::to_string(self.st_size));
    h.add(std::to_string(self.st_mtim.tv_sec) + "." + std::to_string(self.st_mtim.tv_nsec));
  }
  h.add(dir);
  for (const auto& [name, text] : files) {
    h.add(name);
    h.add(text);
  }
  h.add(extra);
  return h.value();
}

std::string parse_cache_file(const std::string& cache_dir, std::string_view kind,
                             std::uint64_t key) {
  return cache_dir + "/" + std::string(kind) + "-" + key_text(key) + ".cbor";
}

std::optional<nlohmann::json> read_parse_cache(const std::string& path, std::string_view schema,
                                               std::uint64_t key) {
  // Only a regular file: a FIFO put where an entry goes would block every command.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  Result<std::string> text = read_file(path, InputKind::kCatalog);
  if (!text.ok()) return std::nullopt;
  NestingCheck nesting;
  if (!nlohmann::json::sax_parse(*text, &nesting, nlohmann::json::input_format_t::cbor,
                                 /*strict=*/true)) {
    return std::nullopt;
  }
  nlohmann::json doc =
      nlohmann::json::from_cbor(*text, /*strict=*/true, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  const auto s = doc.find("schema");
  const auto k = doc.find("key");
  const auto payload = doc.find("payload");
  if (s == doc.end() || k == doc.end() || payload == doc.end() || *s != schema ||
      *k != key_text(key)) {
    return std::nullopt;
  }
  return std::move(*payload);
}

Status write_parse_cache(const std::string& path, std::string_view schema, std::uint64_t key,
                         nlohmann::json payload) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return io_error(path + ": cannot write: " + ec.message());
  nlohmann::json doc;
  doc["schema"] = schema;
  doc["key"] = key_text(key);
  doc["payload"] = std::move(payload);
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(doc);
  return write_file_atomically(path, std::string(cbor.begin(), cbor.end()));
}

}  // namespace gpumem
