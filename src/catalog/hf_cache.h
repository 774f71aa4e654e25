// The local Hugging Face hub cache, laid out as huggingface_hub lays it out, and the settings
// that say where it is and whether gpumem may fill it from the Hub.
//
// A repository `org/name` lives in <cache>/models--org--name/: `refs/main` holds the commit
// of the revision `main`, and `snapshots/<commit>/` holds that revision's files (symbolic
// links into blobs/, or plain files). gpumem reads a snapshot's config.json, its
// quantization configs and its safetensors index and headers from there; when it downloads
// (only when asked: HubSettings::download), it writes the same layout, keeping the headers
// of shards it did not download in `.gpumem/headers/<commit>/` so that the snapshot never
// holds a partial file another tool would take for the real one.
//
// The cache directory follows huggingface_hub's constants.py: HF_HUB_CACHE, else the
// legacy HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, where HF_HOME defaults to
// $XDG_CACHE_HOME/huggingface and XDG_CACHE_HOME to ~/.cache.
#ifndef GPUMEM_CATALOG_HF_CACHE_H_
#define GPUMEM_CATALOG_HF_CACHE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumem {

struct HubSettings {
  std::string cache_dir;                            // where snapshots are looked up and written
  std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT
  std::string token;                                // HF_TOKEN; empty: anonymous
  bool offline = false;                             // HF_HUB_OFFLINE: never touch the network
  bool download = false;                            // --download or GPUMEM_DOWNLOAD=1
};

// The settings from an environment (`getenv` returns null for an unset variable); `download`
// from GPUMEM_DOWNLOAD=1 (a command's --download sets it too).
HubSettings hub_settings_from(const std::function<const char*(const char*)>& getenv);
// The same from the process environment.
HubSettings hub_settings_from_environment();

// Whether `reference` has the shape of a Hub repository id: `org/name`, each part of
// letters, digits, '-', '_' and '.', not starting with '.' or '-'.
bool is_hub_repo_id(std::string_view reference);

// The form in which two repository ids compare equal when the Hub takes them as the same
// (it matches ids case-insensitively): lower-cased ASCII.
std::string repo_id_key(std::string_view repo_id);

// "models--org--name".
std::string hub_repo_folder(std::string_view repo_id);

// The repository id a path through a cache folder names ("/root/.cache/huggingface/hub/
// models--Qwen--Qwen3-8B/snapshots/<commit>" -> "Qwen/Qwen3-8B"), the first such component
// of `text`; nullopt when there is none.
std::optional<std::string> repo_id_in_cache_path(std::string_view text);

// The cache folder of `repo_id` in `cache_dir`, matching the folder name case-insensitively
// (the Hub's ids are); nullopt when the cache holds none.
std::optional<std::string> cached_repo_dir(const std::string& cache_dir, std::string_view repo_id);

// The snapshot `refs/main` names in a repository folder; nullopt when there is no such ref or
// its snapshot directory is missing.
std::optional<std::string> cached_snapshot(const std::string& repo_dir);

// The commit a snapshot directory is named after (its last path component).
std::string snapshot_commit(const std::string& snapshot_dir);

// The directory where a download keeps the headers of snapshot `snapshot_dir`'s shards (each
// under the shard's own file name: its first 8 + N bytes).
std::string stored_headers_dir(const std::string& snapshot_dir);

// One model repository of the cache.
struct CachedModel {
  std::string repo_id;      // from the folder name: "Qwen/Qwen3-8B"
  std::string snapshot;     // refs/main's snapshot; empty when refs/main is absent or dangling
  bool has_config = false;  // the snapshot holds a config.json
};

// Every `models--*` folder of the cache, sorted by repository id; none when the cache
// directory does not exist.
std::vector<CachedModel> list_cached_models(const std::string& cache_dir);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_HF_CACHE_H_
