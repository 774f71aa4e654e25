#include "catalog/model_catalog.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "catalog/hf_cache.h"
#include "core/directory.h"
#include "core/spelling.h"

namespace gpumem {
namespace {

// The closest slug by spelling; else the shortest slug that begins with `word`.
std::optional<std::string> suggestion(std::string_view word,
                                      const std::vector<std::string>& slugs) {
  std::optional<std::string> best = closest_spelling(word, slugs);
  if (best) return best;
  for (const std::string& s : slugs) {
    if (s.starts_with(word) && (!best || s.size() < best->size())) best = s;
  }
  return best;
}

// The bundled configs under <directory>/configs: each folder "org--name" holding a
// config.json is the checkpoint "org/name".
Result<std::vector<ModelCatalog::BundledConfig>> list_bundled(const std::string& directory) {
  namespace fs = std::filesystem;
  std::vector<ModelCatalog::BundledConfig> bundled;
  const fs::path root = fs::path(directory) / "configs";
  if (!is_directory_path(root)) return bundled;
  Result<std::vector<fs::path>> folders = list_directory(root.string());
  if (!folders.ok()) return folders.status();
  for (const fs::path& folder : *folders) {
    const std::string name = folder.filename().string();
    const size_t dashes = name.find("--");
    const fs::path config = folder / "config.json";
    if (dashes == std::string::npos || !is_regular_file_path(config)) continue;
    bundled.push_back({name.substr(0, dashes) + "/" + name.substr(dashes + 2), config.string()});
  }
  std::sort(bundled.begin(), bundled.end(), [](const auto& a, const auto& b) {
    return repo_id_key(a.repo_id) < repo_id_key(b.repo_id);
  });
  return bundled;
}

}  // namespace

struct ModelCatalog::Cache {
  struct Read {
    Result<ModelEntry> entry;
    Diagnostics diags;
  };
  struct Resolution {
    Result<ResolvedModel> model;
    Diagnostics diags;
  };
  std::mutex mu;
  std::map<std::string, Read, std::less<>> reads;
  // (lower-cased repository id, slug), sorted; built on first use.
  std::optional<std::vector<std::pair<std::string, std::string>>> ids;
  std::vector<std::string> id_names;  // as the entries write them, sorted
  std::string first_unreadable;       // the first error of an entry that cannot be read
  // By reference and the directory a relative path was looked up in.
  std::map<std::pair<std::string, std::string>, Resolution> resolutions;
};

ModelCatalog::ModelCatalog(std::string directory, std::vector<std::string> slugs,
                           std::vector<BundledConfig> bundled, ModelHub hub)
    : directory_(std::move(directory)),
      slugs_(std::move(slugs)),
      bundled_(std::move(bundled)),
      hub_(std::move(hub)),
      cache_(std::make_shared<Cache>()) {}

const ModelCatalog::BundledConfig* ModelCatalog::find_bundled(std::string_view repo_id) const {
  const std::string want = repo_id_key(repo_id);
  auto it = std::lower_bound(
      bundled_.begin(), bundled_.end(), want,
      [](const BundledConfig& b, const std::string& key) { return repo_id_key(b.repo_id) < key; });
  return it != bundled_.end() && repo_id_key(it->repo_id) == want ? &*it : nullptr;
}

Result<ModelCatalog> ModelCatalog::open(const std::string& directory, ModelHub hub) {
  namespace fs = std::filesystem;
  if (!is_directory_path(directory)) {
    return not_found(directory + ": model catalog directory not found");
  }
  Result<std::vector<fs::path>> entries = list_directory(directory);
  if (!entries.ok()) return entries.status();
  std::vector<std::string> slugs;
  for (const fs::path& p : *entries) {
    if (p.extension() == ".yaml" && is_regular_file_path(p)) slugs.push_back(p.stem().string());
  }
  std::sort(slugs.begin(), slugs.end());  // by slug, which find() searches (not by file name)
  Result<std::vector<BundledConfig>> bundled = list_bundled(directory);
  if (!bundled.ok()) return bundled.status();
  return ModelCatalog(directory, std::move(slugs), std::move(*bundled), std::move(hub));
}

Result<ModelEntry> ModelCatalog::find(std::string_view slug, Diagnostics& diags) const {
  if (!std::binary_search(slugs_.begin(), slugs_.end(), slug)) {
    std::optional<std::string> s = suggestion(slug, slugs_);
    return not_found("unknown model '" + std::string(slug) + "'" +
                     (s ? "; did you mean '" + *s + "'?" : std::string()));
  }
  {
    std::lock_guard lock(cache_->mu);
    if (auto it = cache_->reads.find(slug); it != cache_->reads.end()) {
      diags.append(it->second.diags);
      return it->second.entry;
    }
  }
  // Read outside the lock: two threads may both read a new slug, and both get the same.
  Diagnostics local;
  Result<ModelEntry> entry =
      load_model_entry(directory_ + "/" + std::string(slug) + ".yaml", local);
  diags.append(local);
  std::lock_guard lock(cache_->mu);
  cache_->reads.try_emplace(std::string(slug), Cache::Read{entry, std::move(local)});
  return entry;
}

}  // namespace gpumem

namespace gpumem {

std::optional<std::string> ModelCatalog::find_by_repo_id(std::string_view repo_id) const {
  (void)repo_ids();  // builds the index
  const std::string want = repo_id_key(repo_id);
  std::lock_guard lock(cache_->mu);
  const auto& ids = *cache_->ids;
  auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(want, std::string()));
  if (it != ids.end() && it->first == want) return it->second;
  return std::nullopt;
}

std::string ModelCatalog::first_unreadable_entry() const {
  (void)repo_ids();  // builds the index
  std::lock_guard lock(cache_->mu);
  return cache_->first_unreadable;
}

std::vector<std::string> ModelCatalog::repo_ids() const {
  {
    std::lock_guard lock(cache_->mu);
    if (cache_->ids) return cache_->id_names;
  }
  std::vector<std::pair<std::string, std::string>> ids;
  std::vector<std::string> names;
  std::string first_unreadable;
  for (const std::string& slug : slugs_) {
    // A broken entry reports itself when it is named by its slug, and when a repository id
    // is found in no other (first_unreadable_entry).
    Diagnostics errors;
    Result<ModelEntry> entry = find(slug, errors);
    if (!entry.ok()) {
      if (first_unreadable.empty()) first_unreadable = entry.status().message();
      continue;
    }
    for (const std::string& id : entry->repo_ids()) {
      ids.emplace_back(repo_id_key(id), slug);
      names.push_back(id);
    }
  }
  for (const BundledConfig& b : bundled_) names.push_back(b.repo_id);
  std::sort(ids.begin(), ids.end());
  std::sort(names.begin(), names.end());
  std::lock_guard lock(cache_->mu);
  if (!cache_->ids) {
    cache_->ids = std::move(ids);
    cache_->id_names = std::move(names);
    cache_->first_unreadable = std::move(first_unreadable);
  }
  return cache_->id_names;
}

Result<ResolvedModel> ModelCatalog::resolve(std::string_view reference,
                                            const std::string& relative_to,
                                            Diagnostics& diags) const {
  for (const auto& [name, model] : derived_) {
    if (name == reference) return model;
  }
  const std::string base = std::filesystem::path(relative_to).parent_path().string();
  const auto key = std::make_pair(std::string(reference), base);
  {
    std::lock_guard lock(cache_->mu);
    if (auto it = cache_->resolutions.find(key); it != cache_->resolutions.end()) {
      diags.append(it->second.diags);
      return it->second.model;
    }
  }
  Diagnostics local;
  Result<ResolvedModel> model = resolve_uncached(key.first, relative_to, local);
  diags.append(local);
  std::lock_guard lock(cache_->mu);
  cache_->resolutions.try_emplace(key, Cache::Resolution{model, std::move(local)});
  return model;
}

ModelCatalog ModelCatalog::with_model(std::string reference, ResolvedModel model) const {
  ModelCatalog copy = *this;
  copy.derived_.emplace_back(std::move(reference), std::move(model));
  return copy;
}

}  // namespace gpumem
