// The model catalog: a directory of catalog entries, model/llm/<slug>.yaml, and of bundled
// Hugging Face configs, model/llm/configs/<org>--<name>/config.json.
//
// An entry is curated: the config keys an engine's memory model reads, with provenance and
// a published parameter count. A bundled config is a public checkpoint's config.json as the
// Hub serves it, kept with a SOURCE.md that says where it was read; it is found by its
// repository id alone, so that `model: Qwen/Qwen3-4B` and a log's
// `--model /data/Qwen3-Coder-30B-A3B-Instruct` need no download.
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
//
// `resolve` turns any model reference (a slug, a repository id, a path; model_reference.h)
// into an architecture, looking beyond the catalog where the catalog's ModelHub says: the
// local Hugging Face cache, and downloads when allowed. Its outcomes are kept like `find`'s.
#ifndef GPUMEM_CATALOG_MODEL_CATALOG_H_
#define GPUMEM_CATALOG_MODEL_CATALOG_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/architecture.h"
#include "catalog/model_reference.h"
#include "core/diagnostics.h"
#include "core/status.h"

namespace gpumem {

class ModelCatalog {
 public:
  // Lists `directory`; a missing directory is kNotFound. `hub` says where references that
  // are not catalog entries are looked for (by default: nowhere).
  static Result<ModelCatalog> open(const std::string& directory, ModelHub hub = {});

  const std::string& directory() const { return directory_; }
  const std::vector<std::string>& slugs() const { return slugs_; }
  const ModelHub& hub() const { return hub_; }

  // Loads <directory>/<slug>.yaml. Unknown slug: kNotFound
  // "unknown model 'x'; did you mean 'y'?"; file errors go to `diags` as well.
  Result<ModelEntry> find(std::string_view slug, Diagnostics& diags) const;

  // The slug of the entry whose model_id or aliases name `repo_id`, case-insensitively.
  std::optional<std::string> find_by_repo_id(std::string_view repo_id) const;
  // Every repository id the entries and the bundled configs name, sorted (for did-you-mean).
  std::vector<std::string> repo_ids() const;
  // The first error of an entry that cannot be read ("file:line:col: message"), empty when
  // every entry reads: a repository id found in no readable entry may be in that one.
  std::string first_unreadable_entry() const;

  struct BundledConfig {
    std::string repo_id;      // "org/name", from the folder name "org--name"
    std::string config_path;  // <directory>/configs/org--name/config.json
  };
  // Sorted by repository id, compared case-insensitively.
  const std::vector<BundledConfig>& bundled_configs() const { return bundled_; }
  // The bundled config of `repo_id`, matched case-insensitively; null when none.
  const BundledConfig* find_bundled(std::string_view repo_id) const;

  // The model `reference` names (model_reference.h). A relative path is looked up beside
  // `relative_to` (a scenario file) first, then in the working directory. Errors (kNotFound
  // for a name nothing matches, with a did-you-mean) carry their text in the Result; a
  // config file's own errors also go to `diags` as file:line:col.
  Result<ResolvedModel> resolve(std::string_view reference, const std::string& relative_to,
                                Diagnostics& diags) const;

  // A copy of this catalog in which `reference` resolves to `model` before anything else:
  // a model derived for one use (explain's quantized variant of a catalog model), which no
  // file holds. The copy shares what this catalog has read.
  ModelCatalog with_model(std::string reference, ResolvedModel model) const;

 private:
  struct Cache;

  ModelCatalog(std::string directory, std::vector<std::string> slugs,
               std::vector<BundledConfig> bundled, ModelHub hub);
  Result<ResolvedModel> resolve_uncached(const std::string& reference,
                                         const std::string& relative_to, Diagnostics& diags) const;

  std::string directory_;
  std::vector<std::string> slugs_;
  std::vector<BundledConfig> bundled_;
  ModelHub hub_;
  std::shared_ptr<Cache> cache_;  // never null
  // with_model's models, by reference; searched before the cache.
  std::vector<std::pair<std::string, ResolvedModel>> derived_;
};

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_MODEL_CATALOG_H_
