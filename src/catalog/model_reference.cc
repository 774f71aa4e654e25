// ModelCatalog::resolve's lookup (model_reference.h): slug, path, repository id in the catalog,
// the local Hugging Face cache, a download.
#include "catalog/model_reference.h"

#include <algorithm>
#include <filesystem>

#include "catalog/model_catalog.h"
#include "core/directory.h"
#include "core/spelling.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

// The existing file or directory `reference` names: absolute, beside `relative_to`, or in the
// working directory.
std::optional<fs::path> existing_path(const std::string& reference,
                                      const std::string& relative_to) {
  const fs::path p(reference);
  if (p.is_relative() && !relative_to.empty()) {
    const fs::path beside = fs::path(relative_to).parent_path() / p;
    if (path_exists(beside)) return beside.lexically_normal();
  }
  if (path_exists(p)) return p.lexically_normal();
  return std::nullopt;
}

std::string identity_of(const fs::path& config) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(config, ec);
  return ec ? config.lexically_normal().string() : canonical.string();
}

// A config.json and the checkpoint beside it. `name` names the model in messages.
Result<ResolvedModel> from_files(const fs::path& config, std::string name, std::string origin,
                                 Diagnostics& diags) {
  Result<Architecture> a = load_hf_config(config.string(), diags);
  if (!a.ok()) return a.status();
  ResolvedModel m;
  m.architecture = std::move(*a);
  m.architecture.name = std::move(name);
  m.identity = identity_of(config);
  m.origin = std::move(origin);
  const fs::path dir = config.parent_path().empty() ? fs::path(".") : config.parent_path();
  // A cache snapshot's shards may be kept as headers alone, beside the snapshots.
  const std::string stored = dir.parent_path().filename() == "snapshots"
                                 ? stored_headers_dir(dir.string())
                                 : std::string();
  Result<std::optional<SafetensorsCheckpoint>> checkpoint =
      read_safetensors_checkpoint(dir.string(), stored);
  if (!checkpoint.ok()) return checkpoint.status();
  m.checkpoint = std::move(*checkpoint);
  return m;
}

Result<ResolvedModel> from_path(const fs::path& path, const std::string& reference,
                                Diagnostics& diags) {
  fs::path config = path;
  if (is_directory_path(path)) {
    config = path / "config.json";
    if (!is_regular_file_path(config)) {
      return not_found(reference + ": the directory holds no config.json");
    }
  }
  return from_files(config, reference, "config.json " + config.string(), diags);
}

Result<ResolvedModel> from_snapshot(const std::string& snapshot, const std::string& repo_id,
                                    const std::string& how, Diagnostics& diags) {
  const fs::path config = fs::path(snapshot) / "config.json";
  if (!is_regular_file_path(config)) {
    return not_found("model '" + repo_id + "': the Hugging Face cache snapshot " + snapshot +
                     " holds no config.json");
  }
  return from_files(config, repo_id, how + " " + snapshot, diags);
}

std::string last_part(std::string_view s) {
  const size_t slash = s.rfind('/');
  return std::string(slash == std::string_view::npos ? s : s.substr(slash + 1));
}

// Whether `longer` is `shorter` followed by a '-' suffix, compared case-insensitively.
bool extends_by_dash(const std::string& longer, const std::string& shorter) {
  const std::string l = repo_id_key(longer);
  const std::string s = repo_id_key(shorter);
  return l.size() > s.size() && l.starts_with(s) && l[s.size()] == '-';
}

// The repository id nearest to `reference` by '-' suffixes: the longest one it extends (a
// release or variant of a known checkpoint, "DeepSeek-V3-0324" or "DeepSeek-V3-Base" of
// "DeepSeek-V3", is nearer to it than any id spelt alike), else the shortest one that extends
// it (the named checkpoint's own variant, "Llama-3.2-1B-Instruct" for "Llama-3.2-1B", is
// nearer than a sibling spelt alike, "Llama-3.1-8B").
std::optional<std::string> dash_relative_id(const std::string& reference,
                                            const std::vector<std::string>& ids) {
  std::optional<std::string> base;
  std::optional<std::string> variant;
  for (const std::string& id : ids) {
    if (extends_by_dash(reference, id) && (!base || id.size() > base->size())) base = id;
    if (extends_by_dash(id, reference) && (!variant || id.size() < variant->size())) variant = id;
  }
  return base ? base : variant;
}

// A suggestion for a repository id nothing matched: the id it extends, else the id that
// extends it, else the closest slug or repository id by spelling, else one whose name part
// (after the '/') is the reference's.
std::optional<std::string> suggestion(const std::string& reference, const ModelCatalog& catalog) {
  std::vector<std::string> candidates = catalog.slugs();
  const std::vector<std::string> ids = catalog.repo_ids();
  if (std::optional<std::string> near = dash_relative_id(reference, ids)) return near;
  candidates.insert(candidates.end(), ids.begin(), ids.end());
  if (std::optional<std::string> s = closest_spelling(reference, candidates)) return s;
  const std::string want = repo_id_key(last_part(reference));
  for (const std::string& id : ids) {
    if (repo_id_key(last_part(id)) == want) return id;
  }
  for (const std::string& slug : catalog.slugs()) {
    if (slug == want) return slug;
  }
  return std::nullopt;
}

// A checkpoint folder on another machine keeps the repository's name ("/data/Qwen3-32B",
// ModelScope's "Qwen2___5-7B-Instruct" for "Qwen2.5-7B-Instruct"): the one catalog entry or
// bundled config whose repository name (or alias) is the reference's last path component,
// compared as the Hub compares ids. Several, or none: nullopt.
struct NamedByFolder {
  std::string repo_id;
  std::optional<std::string> slug;  // a catalog entry's
  const ModelCatalog::BundledConfig* bundled = nullptr;
};
std::optional<NamedByFolder> named_by_folder(std::string_view reference,
                                             const ModelCatalog& catalog) {
  while (reference.ends_with('/')) reference.remove_suffix(1);
  std::string folder = last_part(reference);
  for (size_t at = folder.find("___"); at != std::string::npos; at = folder.find("___", at + 1)) {
    folder.replace(at, 3, ".");
  }
  const std::string want = repo_id_key(folder);
  if (want.empty()) return std::nullopt;
  std::optional<NamedByFolder> found;
  const auto take = [&](NamedByFolder candidate) {
    const bool same = found && found->slug && candidate.slug && *found->slug == *candidate.slug;
    if (found && !same) return false;
    if (!found) found = std::move(candidate);
    return true;
  };
  for (const std::string& id : catalog.repo_ids()) {
    if (repo_id_key(last_part(id)) != want) continue;
    if (std::optional<std::string> slug = catalog.find_by_repo_id(id)) {
      if (!take({id, slug, nullptr})) return std::nullopt;
    } else if (const ModelCatalog::BundledConfig* b = catalog.find_bundled(id)) {
      if (!take({id, std::nullopt, b})) return std::nullopt;
    }
  }
  return found;
}

std::string did_you_mean_text(const std::optional<std::string>& s) {
  return s ? "; did you mean '" + *s + "'?" : std::string();
}

}  // namespace

Result<ResolvedModel> ModelCatalog::resolve_uncached(const std::string& reference,
                                                     const std::string& relative_to,
                                                     Diagnostics& diags) const {
  if (reference.empty()) return invalid_input("the model reference is empty");
  const auto from_entry = [&](const std::string& slug,
                              const std::string& origin) -> Result<ResolvedModel> {
    Result<ModelEntry> entry = find(slug, diags);
    if (!entry.ok()) return entry.status();
    return ResolvedModel{entry->architecture, "catalog " + slug, origin, std::nullopt, {}};
  };
  if (std::binary_search(slugs_.begin(), slugs_.end(), reference)) {
    return from_entry(reference, "catalog entry " + reference);
  }
  if (std::optional<fs::path> path = existing_path(reference, relative_to)) {
    return from_path(*path, reference, diags);
  }
  if (reference.ends_with(".json")) {
    return not_found("no Hugging Face config at '" + reference + "'");
  }
  if (!is_hub_repo_id(reference)) {
    // A path that is not on this machine: the engine would have read a checkpoint there, whose
    // folder name says which. The answer says that it assumed so (ResolvedModel::assumed). A
    // name without a '/' is a slug (mistyped), not a folder.
    std::optional<NamedByFolder> named;
    if (reference.find('/') != std::string::npos) named = named_by_folder(reference, *this);
    if (named) {
      const std::string assumed = "'" + reference +
                                  "' is not on this machine; its folder name is that of " +
                                  named->repo_id;
      Result<ResolvedModel> m =
          named->slug
              ? from_entry(*named->slug, "catalog entry " + *named->slug + " (" + assumed + ")")
              : from_files(named->bundled->config_path, named->repo_id,
                           "bundled config " + named->bundled->config_path + " (" + assumed + ")",
                           diags);
      if (m.ok()) m->assumed = assumed;
      return m;
    }
    // Not a slug: find's kNotFound, with its did-you-mean over slugs.
    Result<ModelEntry> entry = find(reference, diags);
    return entry.status();
  }
  if (std::optional<std::string> slug = find_by_repo_id(reference)) {
    return from_entry(*slug, "catalog entry " + *slug + " (repository id " + reference + ")");
  }
  // The id may be the broken entry's: answering from a bundled config, the cache or a
  // download instead would be answering for another file than the catalog's.
  if (std::string broken = first_unreadable_entry(); !broken.empty()) {
    return invalid_input(broken + " (a catalog entry gpumem cannot read, which may be the one '" +
                         reference + "' names)");
  }
  if (const BundledConfig* bundled = find_bundled(reference)) {
    return from_files(bundled->config_path, reference, "bundled config " + bundled->config_path,
                      diags);
  }
  const HubSettings& hub = hub_.settings;
  std::string where;
  if (!hub.cache_dir.empty()) {
    if (std::optional<std::string> repo = cached_repo_dir(hub.cache_dir, reference)) {
      if (std::optional<std::string> snapshot = cached_snapshot(*repo)) {
        return from_snapshot(*snapshot, reference, "Hugging Face cache snapshot", diags);
      }
      where = ": the catalog does not name it, and the Hugging Face cache holds " + *repo +
              " but its refs/main names no snapshot";
    } else {
      where = ": neither the catalog nor the local Hugging Face cache has it";
    }
  }
  if (hub.download && hub_.fetcher) {
    if (hub.offline) {
      return invalid_input("model '" + reference + "'" + where +
                           ", and HF_HUB_OFFLINE is set: gpumem does not download it");
    }
    Result<std::string> snapshot = hub_.fetcher->fetch(reference, hub);
    if (!snapshot.ok()) return snapshot.status();
    return from_snapshot(*snapshot, reference, "downloaded into", diags);
  }
  // Downloading is offered where a fetcher is at hand (the command line), never in tests.
  const std::string hint =
      hub_.fetcher
          ? " (--download, or GPUMEM_DOWNLOAD=1, fetches its config from " + hub.endpoint + ")"
          : "";
  return not_found("unknown model '" + reference + "'" + where +
                   did_you_mean_text(suggestion(reference, *this)) + hint);
}

}  // namespace gpumem
