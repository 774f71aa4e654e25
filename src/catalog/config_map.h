// Located, lenient reading of a configuration mapping: what a Hugging Face config.json, its
// hf_quant_config.json and a catalog entry's `config:` mapping are read through.
//
// A ConfigMap answers typed questions about one mapping (an integer, a positive count, a
// list of strings) and records every type error, missing key and impossible value in the
// caller's Diagnostics with its file:line:col, then keeps going, so one run reports all of
// a file's mistakes. The document helpers turn a file or a text into a node the same way.
// Internal to catalog/: architecture.h is the public face.
#ifndef GPUMEM_CATALOG_CONFIG_MAP_H_
#define GPUMEM_CATALOG_CONFIG_MAP_H_

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/yaml_reader.h"
#include "core/atomic_file.h"
#include "core/diagnostics.h"
#include "core/status.h"

namespace gpumem {

// The largest dimension a config may give (hidden size, layers, vocabulary, context, experts):
// 2^26 = 67,108,864, above every published model (the longest context, Llama 4 Scout's, is
// 10,485,760) and small enough that the products of a few of them stay far inside int64.
inline constexpr std::int64_t kMaxConfigCount = std::int64_t{1} << 26;

// Lenient, located access to one mapping of a config. Unknown keys are fine (HF configs
// carry many gpumem does not use); JSON null reads as absent; every type error, missing key
// and impossible value is recorded with its place and the reader keeps going.
class ConfigMap {
 public:
  ConfigMap(const std::string& file, const YAML::Node& node, std::string what, Diagnostics& diags)
      : file_(file), node_(node), what_(std::move(what)), diags_(diags) {
    valid_ = node.IsMap();
    if (!valid_) {
      diags_.error(location(file_, node), what_ + " must be a mapping, got " + describe(node));
    }
  }

  bool valid() const { return valid_; }
  const std::string& file() const { return file_; }
  Diagnostics& diags() const { return diags_; }

  // The value of `key`, or an undefined node when absent or null.
  YAML::Node get(std::string_view key) const {
    if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) {
        return it->second.IsNull() ? YAML::Node(YAML::NodeType::Undefined) : it->second;
      }
    }
    return YAML::Node(YAML::NodeType::Undefined);
  }
  bool has(std::string_view key) const { return get(key).IsDefined(); }
  // Whether `key` is written with a null value (JSON null), which some config classes read as
  // "off" rather than as their default.
  bool is_null(std::string_view key) const {
    if (!valid_) return false;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) return it->second.IsNull();
    }
    return false;
  }

  SourceLoc where(std::string_view key) const {
    const YAML::Node n = get(key);
    return location(file_, n.IsDefined() ? n : node_);
  }
  void error(std::string_view key, const std::string& message) const {
    diags_.error(where(key), message);
  }
  void missing(std::string_view key) const {
    diags_.error(location(file_, node_), "missing key '" + std::string(key) + "' in " + what_);
  }

  std::optional<std::int64_t> integer(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    return scalar_integer(file_, n, quoted(key), diags_);
  }

  // A count that must be > 0 and at most kMaxConfigCount. Absent: `fallback`, or (without
  // one) a missing-key error. Returns 0 after any error so callers can keep going.
  std::int64_t positive(std::string_view key,
                        std::optional<std::int64_t> fallback = std::nullopt) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) {
      if (fallback) return *fallback;
      missing(key);
      return 0;
    }
    std::optional<std::int64_t> v = scalar_integer(file_, n, quoted(key), diags_);
    if (!v) return 0;
    if (*v <= 0) {
      diags_.error(location(file_, n),
                   quoted(key) + " must be positive, got " + std::to_string(*v));
      return 0;
    }
    if (*v > kMaxConfigCount) {
      diags_.error(location(file_, n), quoted(key) + " is " + std::to_string(*v) +
                                           "; gpumem reads model dimensions up to " +
                                           std::to_string(kMaxConfigCount) + " (2^26)");
      return 0;
    }
    return *v;
  }

  std::optional<double> number(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    return scalar_real(n, quoted(key));
  }

  std::optional<bool> boolean(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    return scalar_boolean(file_, n, quoted(key), diags_);
  }

  std::optional<std::string> string(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    return scalar_string(file_, n, quoted(key), diags_);
  }

  std::optional<std::vector<std::string>> strings(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    if (!n.IsSequence()) {
      diags_.error(location(file_, n),
                   quoted(key) + " must be a list of strings, got " + describe(n));
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (const YAML::Node& item : n) {
      std::optional<std::string> s =
          scalar_string(file_, item, "entries of " + quoted(key), diags_);
      if (!s) return std::nullopt;
      out.push_back(std::move(*s));
    }
    return out;
  }

  std::optional<std::vector<std::int64_t>> integers(std::string_view key) const {
    const YAML::Node n = get(key);
    if (!n.IsDefined()) return std::nullopt;
    if (!n.IsSequence()) {
      diags_.error(location(file_, n),
                   quoted(key) + " must be a list of integers, got " + describe(n));
      return std::nullopt;
    }
    std::vector<std::int64_t> out;
    for (const YAML::Node& item : n) {
      std::optional<std::int64_t> v =
          scalar_integer(file_, item, "entries of " + quoted(key), diags_);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }

  // Any finite number in JSON's notations ("1e-05", "500000.0", "40").
  std::optional<double> scalar_real(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) {
      diags_.error(location(file_, n), what + " must be a number, got " + describe(n));
      return std::nullopt;
    }
    const std::string& text = n.Scalar();
    double v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
    if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(v)) {
      diags_.error(location(file_, n), what + " must be a number, got '" + text + "'");
      return std::nullopt;
    }
    return v;
  }

  static std::string quoted(std::string_view key) { return "'" + std::string(key) + "'"; }

 private:
  const std::string& file_;
  YAML::Node node_;
  std::string what_;
  Diagnostics& diags_;
  bool valid_ = false;
};

// Parses YAML/JSON text; a syntax error becomes one diagnostic.
std::optional<YAML::Node> parse_document(const std::string& path, const std::string& text,
                                         Diagnostics& diags);
// Reads and parses a YAML/JSON file; failures become one diagnostic.
std::optional<YAML::Node> read_document(const std::string& path, InputKind kind,
                                        Diagnostics& diags);
// A read that failed: `local`'s diagnostics join `diags`, and their text is the status.
Status config_failure(const Diagnostics& local, Diagnostics& diags);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_CONFIG_MAP_H_
