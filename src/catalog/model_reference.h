// What a model reference names, and how it was found.
//
// A scenario's `model:`, an engine's --model-path / --model, and a speculative draft's path
// are references. One resolves, in this order (ModelCatalog::resolve):
//   1. a catalog slug (model/llm/<slug>.yaml);
//   2. a path that exists — absolute, relative to the scenario's directory, or to the
//      working directory, as engines take a local path first: a config.json, or a directory
//      holding one (a checkpoint or a Hugging Face snapshot);
//   3. a repository id `org/name`: the catalog entry whose model_id or aliases name it
//      (case-insensitively, as the Hub matches ids), else the catalog's bundled config of
//      that repository (model_catalog.h), else the snapshot refs/main names in the local
//      Hugging Face cache (hf_cache.h), else — only when the hub settings allow a
//      download — the files the HubFetcher brings into that cache;
//   4. a path that is not on this machine: the catalog entry or bundled config whose
//      repository name its last component is (a checkpoint folder keeps the repository's
//      name), marked as assumed;
//   5. otherwise an error with a did-you-mean over catalog slugs and repository ids.
// A model read from files carries its safetensors headers when they are at hand (in the
// snapshot's shards, or stored beside it by a download), so its weights can be checked.
#ifndef GPUMEM_CATALOG_MODEL_REFERENCE_H_
#define GPUMEM_CATALOG_MODEL_REFERENCE_H_

#include <memory>
#include <optional>
#include <string>

#include "catalog/architecture.h"
#include "catalog/hf_cache.h"
#include "catalog/safetensors.h"
#include "core/status.h"

namespace gpumem {

struct ResolvedModel {
  Architecture architecture;
  // Equal identities name the same model: "catalog <slug>", or the config.json's canonical
  // path.
  std::string identity;
  // How the reference was found, for reports: "catalog entry qwen3-8b (model_id Qwen/Qwen3-8B)",
  // "Hugging Face cache snapshot <dir>", "config.json <path>".
  std::string origin;
  // The checkpoint's tensors from its safetensors headers; nullopt when they are not at hand
  // (a catalog entry, a config.json alone, a snapshot without index or headers).
  std::optional<SafetensorsCheckpoint> checkpoint;
  // Set when the reference does not name the model outright and it was taken for it (a path
  // not on this machine, read by its folder name): what was assumed, for the report to say.
  std::string assumed;
};

// Brings a repository's config files and safetensors headers into the local cache
// (src/hub implements it over HTTP). Kept abstract so that the catalog needs no network.
class HubFetcher {
 public:
  virtual ~HubFetcher() = default;
  // The snapshot directory the files were written to; errors say what failed (a 404, a
  // refused connection, an offline hub).
  virtual Result<std::string> fetch(const std::string& repo_id,
                                    const HubSettings& settings) const = 0;
};

// Where models other than catalog entries come from. The default finds none: no cache
// directory, no downloads.
struct ModelHub {
  HubSettings settings;
  std::shared_ptr<const HubFetcher> fetcher;  // null: never download
};

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_MODEL_REFERENCE_H_
