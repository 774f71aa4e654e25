// The parsed GPU catalog in the parse cache (catalog/parse_cache.h: where entries live, how
// they are keyed and when one is read), so that a command does not parse every model/gpu file
// with yaml-cpp on each run (with 64 files that was a quarter of a `gpumem simulate`). Only a
// catalog read without a single diagnostic is cached, so errors in GPU files are reported as
// ever.
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
