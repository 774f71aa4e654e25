#include "catalog/yaml_reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "core/atomic_file.h"
#include "core/size_parse.h"
#include "core/spelling.h"

namespace gpumem {

SourceLoc location(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined()) return {file, 0, 0};
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

Diagnostic yaml_syntax_error(const std::string& file, const YAML::Exception& e) {
  std::string message = "YAML syntax error: ";
  if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e)) {
    // yaml-cpp 0.7 singledocparser.cpp HandleNode: a DepthGuard stops runaway recursion.
    message += "nesting deeper than " + std::to_string(deep->depth() - 1) + " levels";
  } else {
    for (const char c : e.msg) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte != 0x7f) {
        message += c;
        continue;
      }
      constexpr char kHex[] = "0123456789abcdef";
      message += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
    }
  }
  const bool at = !e.mark.is_null();
  return {{file, at ? e.mark.line + 1 : 0, at ? e.mark.column + 1 : 0}, std::move(message)};
}

// Records where each document's first node is and builds nothing: counting documents costs
// no memory however many the text holds.
struct DocumentStarts final : YAML::EventHandler {
  std::vector<YAML::Mark> marks;
  bool awaiting_node = false;
  void node(const YAML::Mark& mark) {
    if (awaiting_node) marks.push_back(mark);
    awaiting_node = false;
  }
  void OnDocumentStart(const YAML::Mark&) override { awaiting_node = true; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnMapEnd() override {}
};

Result<YamlDocument> parse_yaml(std::string file, const std::string& text) {
  try {
    // Only the first two documents are parsed: yaml-cpp 0.7's LoadAll, asked for all of
    // them, can produce null documents without end on some malformed text (found by the
    // fuzz targets: gigabytes within seconds), and a second document is all there is to know.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentStarts starts;
    for (int i = 0; i < 2 && parser.HandleNextDocument(starts); ++i) {
    }
    if (starts.marks.size() > 1) {
      // A second document would be parsed and then ignored: refused instead, where it starts.
      const YAML::Mark& m = starts.marks[1];
      const Diagnostic d{{file, m.line + 1, m.column + 1},
                         "a second YAML document starts here; gpumem reads one document per "
                         "file (split it into files of their own)"};
      return invalid_input(d.to_string());
    }
    return YamlDocument{std::move(file), starts.marks.empty() ? YAML::Node() : YAML::Load(text)};
  } catch (const YAML::Exception& e) {
    return invalid_input(yaml_syntax_error(file, e).to_string());
  }
}

Result<YamlDocument> load_yaml_file(const std::string& path, InputKind kind) {
  Result<std::string> text = read_file(path, kind);
  if (!text.ok()) return text.status();
  return parse_yaml(path, *text);
}

std::string describe(const YAML::Node& node) {
  if (node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "'" + node.Scalar() + "'";
}

namespace {

// The scalar's text, or nullopt (with a diagnostic) when `node` is not a plain scalar.
std::optional<std::string> scalar_text(const std::string& file, const YAML::Node& node,
                                       const std::string& what, const char* expected,
                                       Diagnostics& diags) {
  if (!node.IsScalar()) {
    diags.error(location(file, node), what + " must be " + expected + ", got " + describe(node));
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
    return;
  }
  // Walking a yaml-cpp map builds a node pair per entry: done once here, not once per key
  // asked for (a catalog of 64 GPU files asks about 20 keys of each).
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar()) entries_.emplace_back(it->first.Scalar(), it->second);
  }
}

YAML::Node MapReader::child(std::string_view key, bool required) {
  known_.emplace_back(key);
  if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
  // The first of equal keys, as a walk of the map finds it; finish() reports the duplicate.
  for (const auto& [name, value] : entries_) {
    if (name == key) return value;
  }
  if (required) {
    diags_.error(location(file_, node_), "missing key '" + std::string(key) + "' in " + what_);
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
    // it->first lives in a proxy that dies with this statement: copy the node handle.
    const YAML::Node key = it->first;
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
