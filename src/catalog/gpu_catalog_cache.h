// A cache of the parsed GPU catalog, so that a command does not parse every model/gpu file
// with yaml-cpp on each run (with 64 files that was a quarter of a `gpumem simulate`).
//
// Where: $GPUMEM_CACHE_DIR, else $XDG_CACHE_HOME/gpumem, else $HOME/.cache/gpumem;
// GPUMEM_CACHE_DIR=off turns the cache off. One JSON file per catalog state, named by its
// key: a 64-bit FNV-1a hash of the catalog directory's path, of every *.yaml file's name and
// bytes, and of the running program itself (the size and modification time of
// /proc/self/exe, so that a rebuilt parser reads the files anew). A changed, added or removed
// file gives another key, so a stale entry is never read; an entry that does not parse, or
// whose recorded key differs, is ignored and written again. Only a catalog read without a
// single diagnostic is cached, so errors in GPU files are reported as ever. Entries are
// written atomically; a cache that cannot be written changes nothing but the time.
#ifndef GPUMEM_CATALOG_GPU_CATALOG_CACHE_H_
#define GPUMEM_CATALOG_GPU_CATALOG_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "core/status.h"

namespace gpumem {

// The cache directory the environment names; empty when the cache is off or no directory is
// known.
std::string gpu_cache_dir();

// The key of a catalog directory `dir` whose files are (name, text) pairs in load order.
std::uint64_t gpu_catalog_key(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files);

// The cache entry of `key` under `cache_dir`.
std::string gpu_cache_file(const std::string& cache_dir, std::uint64_t key);

// The GPU types stored under `key` at `path`; nothing when absent, unreadable or another key's.
std::optional<std::vector<GpuSpec>> read_gpu_cache(const std::string& path, std::uint64_t key);

// Stores `gpus` under `key` at `path`, creating the directory.
Status write_gpu_cache(const std::string& path, std::uint64_t key,
                       const std::vector<GpuSpec>& gpus);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_GPU_CATALOG_CACHE_H_
