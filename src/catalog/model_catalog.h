// The model catalog: a directory of catalog entries, model/llm/<slug>.yaml.
//
// Opening a catalog only lists its slugs (file stems of *.yaml, sorted); `find` reads and
// validates one entry on demand, so one broken file does not hide the others. An unknown
// slug is an error that suggests the closest slug, by spelling or, for a truncated name
// ("llama-3.1-70b"), the shortest slug it begins.
//
// An entry is read from disk once per catalog: `find` keeps each slug's outcome (the entry
// or its error, and the diagnostics reading it gave) and replays it on later calls, since a
// sweep resolves the same model for every point. The catalog's files are taken not to
// change while it is open. Copies of a catalog share what it has read; `find` is safe to
// call from several threads at once.
#ifndef GPUMEM_CATALOG_MODEL_CATALOG_H_
#define GPUMEM_CATALOG_MODEL_CATALOG_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"
#include "core/diagnostics.h"
#include "core/status.h"

namespace gpumem {

class ModelCatalog {
 public:
  // Lists `directory`; a missing directory is kNotFound.
  static Result<ModelCatalog> open(const std::string& directory);

  const std::string& directory() const { return directory_; }
  const std::vector<std::string>& slugs() const { return slugs_; }

  // Loads <directory>/<slug>.yaml. Unknown slug: kNotFound
  // "unknown model 'x'; did you mean 'y'?"; file errors go to `diags` as well.
  Result<ModelEntry> find(std::string_view slug, Diagnostics& diags) const;

 private:
  struct Cache;

  ModelCatalog(std::string directory, std::vector<std::string> slugs);

  std::string directory_;
  std::vector<std::string> slugs_;
  std::shared_ptr<Cache> cache_;  // never null
};

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_MODEL_CATALOG_H_
