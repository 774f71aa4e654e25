// Reading a gpumem catalog entry, model/llm/<slug>.yaml (architecture.h: load_model_entry,
// parse_model_entry, load_architecture_file): strict top-level keys with provenance, and
// the `config:` mapping read as a config.json.
#include <filesystem>
#include <optional>

#include "catalog/architecture.h"
#include "catalog/config_map.h"
#include "catalog/hf_cache.h"

namespace gpumem {

namespace {

std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// The catalog entry of a parsed document (`root` is nullopt when it did not parse: its error
// is in `local` already).
Result<ModelEntry> read_model_entry(const std::string& path, const std::optional<YAML::Node>& root,
                                    Diagnostics& local, Diagnostics& diags) {
  if (!root) return config_failure(local, diags);

  ModelEntry entry;
  MapReader r(path, *root, "catalog entry", local);
  if (!r.valid()) return config_failure(local, diags);
  std::optional<std::string> name = r.string("name", /*required=*/true);
  entry.model_id = r.string("model_id", /*required=*/true).value_or("");
  const YAML::Node aliases = r.child("aliases");
  const YAML::Node source = r.child("source", /*required=*/true);
  const YAML::Node config = r.child("config", /*required=*/true);
  const YAML::Node published = r.child("published_params", /*required=*/true);
  entry.notes = r.string("notes").value_or("");
  r.finish();

  entry.slug = stem_of(path);
  if (name && *name != entry.slug) {
    r.error(r.child("name"),
            "'name' is '" + *name + "' but the file is named '" + entry.slug + ".yaml'");
  }
  if (aliases.IsDefined()) {
    if (!aliases.IsSequence()) {
      r.error(aliases, "'aliases' must be a list of repository ids (org/name)");
    } else {
      for (const YAML::Node& alias : aliases) {
        std::optional<std::string> id = scalar_string(path, alias, "entries of 'aliases'", local);
        if (!id) continue;
        if (!is_hub_repo_id(*id)) {
          r.error(alias, "alias '" + *id + "' is not a repository id (org/name)");
          continue;
        }
        entry.aliases.push_back(std::move(*id));
      }
    }
  }
  if (source.IsDefined()) {
    MapReader s(path, source, "'source'", local);
    for (auto it = source.begin(); s.valid() && it != source.end(); ++it) {
      const std::string key = it->first.Scalar();
      const YAML::Node value = it->second;
      std::string text;
      if (value.IsScalar()) {
        text = value.Scalar();
      } else if (value.IsSequence()) {
        for (const YAML::Node& line : value) {
          std::optional<std::string> item =
              scalar_string(path, line, "entries of 'source." + key + "'", local);
          if (item) text += (text.empty() ? "" : "\n") + *item;
        }
      } else {
        s.error(value, "'source." + key + "' must be a string or a list of strings");
      }
      entry.sources.emplace_back(key, std::move(text));
    }
  }
  if (published.IsDefined()) {
    MapReader p(path, published, "'published_params'", local);
    entry.published_params.value = p.string("value", /*required=*/true).value_or("");
    entry.published_params.source = p.string("source").value_or("");
    entry.published_params.status = p.string("status").value_or("");
    p.finish();
  }
  if (config.IsDefined()) {
    Result<Architecture> a = parse_hf_config(path, config, entry.slug, local);
    if (a.ok()) entry.architecture = std::move(*a);
  }
  if (!local.empty()) return config_failure(local, diags);
  return entry;
}

}  // namespace

std::vector<std::string> ModelEntry::repo_ids() const {
  std::vector<std::string> ids;
  const std::string first = model_id.substr(0, model_id.find(' '));
  if (is_hub_repo_id(first)) ids.push_back(first);
  ids.insert(ids.end(), aliases.begin(), aliases.end());
  return ids;
}

Result<ModelEntry> load_model_entry(const std::string& path, Diagnostics& diags) {
  Diagnostics local;
  const std::optional<YAML::Node> root = read_document(path, InputKind::kCatalog, local);
  return read_model_entry(path, root, local, diags);
}

Result<ModelEntry> parse_model_entry(const std::string& file, const std::string& text,
                                     Diagnostics& diags) {
  Diagnostics local;
  const std::optional<YAML::Node> root = parse_document(file, text, local);
  return read_model_entry(file, root, local, diags);
}

Result<Architecture> load_architecture_file(const std::string& path, Diagnostics& diags) {
  Result<ModelEntry> entry = load_model_entry(path, diags);
  if (!entry.ok()) return entry.status();
  return std::move(entry->architecture);
}

}  // namespace gpumem
