#include "catalog/model_catalog.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

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

}  // namespace

struct ModelCatalog::Cache {
  struct Read {
    Result<ModelEntry> entry;
    Diagnostics diags;
  };
  std::mutex mu;
  std::map<std::string, Read, std::less<>> reads;
};

ModelCatalog::ModelCatalog(std::string directory, std::vector<std::string> slugs)
    : directory_(std::move(directory)),
      slugs_(std::move(slugs)),
      cache_(std::make_shared<Cache>()) {}

Result<ModelCatalog> ModelCatalog::open(const std::string& directory) {
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
  return ModelCatalog(directory, std::move(slugs));
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
