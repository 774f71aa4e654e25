#include "catalog/config_map.h"

#include "core/atomic_file.h"

namespace gpumem {

// Parses YAML/JSON text; a syntax error becomes one diagnostic.
std::optional<YAML::Node> parse_document(const std::string& path, const std::string& text,
                                         Diagnostics& diags) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    const Diagnostic d = yaml_syntax_error(path, e);
    diags.error(d.loc, d.message);
    return std::nullopt;
  }
}

// Reads and parses a YAML/JSON file; failures become one diagnostic.
std::optional<YAML::Node> read_document(const std::string& path, Diagnostics& diags) {
  Result<std::string> text = read_file(path);
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
