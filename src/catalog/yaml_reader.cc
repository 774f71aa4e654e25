#include "catalog/yaml_reader.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/size_parse.h"
#include "core/spelling.h"

namespace gpumem {

SourceLoc location(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined()) return {file, 0, 0};
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

Result<YamlDocument> parse_yaml(std::string file, const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    return YamlDocument{std::move(file), root};
  } catch (const YAML::Exception& e) {
    Diagnostic d{{file, e.mark.is_null() ? 0 : e.mark.line + 1,
                  e.mark.is_null() ? 0 : e.mark.column + 1},
                 "YAML syntax error: " + e.msg};
    return invalid_input(d.to_string());
  }
}

Result<YamlDocument> load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return io_error(path + ": cannot read file");
  return parse_yaml(path, buffer.str());
}

namespace {

std::string describe(const YAML::Node& node) {
  if (node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "'" + node.Scalar() + "'";
}

// The scalar's text, or nullopt (with a diagnostic) when `node` is not a plain scalar.
std::optional<std::string> scalar_text(const std::string& file, const YAML::Node& node,
                                       const std::string& what, const char* expected,
                                       Diagnostics& diags) {
  if (!node.IsScalar()) {
    diags.error(location(file, node),
                what + " must be " + expected + ", got " + describe(node));
    return std::nullopt;
  }
  return node.Scalar();
}

}  // namespace

std::optional<std::string> scalar_string(const std::string& file, const YAML::Node& node,
                                         const std::string& what, Diagnostics& diags) {
  return scalar_text(file, node, what, "a string", diags);
}

std::optional<std::int64_t> scalar_integer(const std::string& file, const YAML::Node& node,
                                           const std::string& what, Diagnostics& diags) {
  std::optional<std::string> text = scalar_text(file, node, what, "an integer", diags);
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    diags.error(location(file, node), what + " is out of range: '" + *text + "'");
    return std::nullopt;
  }
  if (ec != std::errc() || ptr != end || text->empty()) {
    diags.error(location(file, node), what + " must be an integer, got '" + *text + "'");
    return std::nullopt;
  }
  return v;
}

std::optional<double> scalar_number(const std::string& file, const YAML::Node& node,
                                    const std::string& what, Diagnostics& diags) {
  std::optional<std::string> text = scalar_text(file, node, what, "a number", diags);
  if (!text) return std::nullopt;
  double v = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, v, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || text->empty() || !std::isfinite(v)) {
    diags.error(location(file, node), what + " must be a number, got '" + *text + "'");
    return std::nullopt;
  }
  return v;
}

std::optional<bool> scalar_boolean(const std::string& file, const YAML::Node& node,
                                   const std::string& what, Diagnostics& diags) {
  std::optional<std::string> text = scalar_text(file, node, what, "true or false", diags);
  if (!text) return std::nullopt;
  if (*text == "true") return true;
  if (*text == "false") return false;
  diags.error(location(file, node), what + " must be true or false, got '" + *text + "'");
  return std::nullopt;
}

std::optional<Bytes> scalar_size(const std::string& file, const YAML::Node& node,
                                 const std::string& what, Diagnostics& diags) {
  std::optional<std::string> text = scalar_text(file, node, what, "a size", diags);
  if (!text) return std::nullopt;
  Result<Bytes> size = parse_size(*text);
  if (!size.ok()) {
    diags.error(location(file, node), what + ": " + size.status().message());
    return std::nullopt;
  }
  return *size;
}

MapReader::MapReader(const std::string& file, const YAML::Node& node, std::string what,
                     Diagnostics& diags)
    : file_(file), node_(node), what_(std::move(what)), diags_(diags) {
  if (!node.IsMap()) {
    valid_ = false;
    diags_.error(location(file_, node), what_ + " must be a mapping, got " + describe(node));
  }
}

YAML::Node MapReader::child(std::string_view key, bool required) {
  known_.emplace_back(key);
  if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->second;
  }
  if (required) {
    diags_.error(location(file_, node_),
                 "missing key '" + std::string(key) + "' in " + what_);
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::optional<std::string> MapReader::string(std::string_view key, bool required) {
  YAML::Node n = child(key, required);
  if (!n.IsDefined()) return std::nullopt;
  return scalar_string(file_, n, "'" + std::string(key) + "'", diags_);
}

std::optional<std::int64_t> MapReader::integer(std::string_view key, bool required) {
  YAML::Node n = child(key, required);
  if (!n.IsDefined()) return std::nullopt;
  return scalar_integer(file_, n, "'" + std::string(key) + "'", diags_);
}

std::optional<double> MapReader::number(std::string_view key, bool required) {
  YAML::Node n = child(key, required);
  if (!n.IsDefined()) return std::nullopt;
  return scalar_number(file_, n, "'" + std::string(key) + "'", diags_);
}

std::optional<bool> MapReader::boolean(std::string_view key, bool required) {
  YAML::Node n = child(key, required);
  if (!n.IsDefined()) return std::nullopt;
  return scalar_boolean(file_, n, "'" + std::string(key) + "'", diags_);
}

std::optional<Bytes> MapReader::size(std::string_view key, bool required) {
  YAML::Node n = child(key, required);
  if (!n.IsDefined()) return std::nullopt;
  return scalar_size(file_, n, "'" + std::string(key) + "'", diags_);
}

void MapReader::error(const YAML::Node& node, const std::string& message) {
  diags_.error(location(file_, node.IsDefined() ? node : node_), message);
}

void MapReader::finish() {
  if (!valid_) return;
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: it-> yields a temporary
    if (!key.IsScalar()) {
      diags_.error(location(file_, key), "keys in " + what_ + " must be plain names");
      continue;
    }
    const std::string& name = key.Scalar();
    if (!seen.insert(name).second) {
      diags_.error(location(file_, key), "duplicate key '" + name + "' in " + what_);
      continue;
    }
    bool is_known = false;
    for (const std::string& k : known_) is_known = is_known || k == name;
    if (!is_known) {
      diags_.error(location(file_, key),
                   "unknown key '" + name + "' in " + what_ + did_you_mean(name, known_));
    }
  }
}

}  // namespace gpumem
