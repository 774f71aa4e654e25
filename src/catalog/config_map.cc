#include "catalog/config_map.h"

#include "core/atomic_file.h"

namespace gpumem {

// Parses YAML/JSON text; a syntax error or a second document becomes one diagnostic.
std::optional<YAML::Node> parse_document(const std::string& path, const std::string& text,
                                         Diagnostics& diags) {
  Result<YamlDocument> doc = parse_yaml(path, text);
  if (!doc.ok()) {
    diags.error({}, doc.status().message());
    return std::nullopt;
  }
  return doc->root;
}

// Reads and parses a YAML/JSON file; failures become one diagnostic.
std::optional<YAML::Node> read_document(const std::string& path, InputKind kind,
                                        Diagnostics& diags) {
  Result<std::string> text = read_file(path, kind);
  if (!text.ok()) {
    diags.error({}, text.status().message());
    return std::nullopt;
  }
  return parse_document(path, *text, diags);
}

Status config_failure(const Diagnostics& local, Diagnostics& diags) {
  diags.append(local);
  std::string text = local.to_string();
  if (!text.empty()) text.pop_back();
  return invalid_input(std::move(text));
}

}  // namespace gpumem
