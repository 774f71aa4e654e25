// A cache of parsed input files, so that a command does not run yaml-cpp over the same files
// on every run (its scanner was a quarter of a `gpumem simulate`): one document per state of a
// set of files, what parsing them gave, for a reader that turns it back. Entries are CBOR
// (RFC 8949, nlohmann::json's binary form): reading JSON text back was a tenth of a
// `gpumem simulate` of one GPU.
//
// Where: $GPUMEM_CACHE_DIR, else $XDG_CACHE_HOME/gpumem, else $HOME/.cache/gpumem;
// GPUMEM_CACHE_DIR=off turns every cache off. An entry is named by its kind and key: a 64-bit
// FNV-1a hash of the entry's schema, of the running program itself (the size and
// modification time of /proc/self/exe, so that a rebuilt parser reads the files anew), of the
// directory's path, of every file's name and bytes, and of what else the parse read (`extra`).
// A changed, added or removed file gives another key, so a stale entry is never read; an
// entry that does not parse, or whose recorded schema or key differs, is ignored. A reader
// caches only what parsed without a single diagnostic, so input errors are reported as ever.
// Entries are written atomically; a cache that cannot be written changes nothing but the time.
#ifndef GPUMEM_CATALOG_PARSE_CACHE_H_
#define GPUMEM_CATALOG_PARSE_CACHE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpumem {

// The cache directory the environment names; empty when the cache is off or no directory is
// known.
std::string parse_cache_dir();

// The key of the files (name, text) of `dir`, in load order, parsed under `schema`.
std::uint64_t parse_cache_key(std::string_view schema, const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& files,
                              std::string_view extra = {});

// The entry of `kind` ("gpu-catalog") and `key` under `cache_dir`.
std::string parse_cache_file(const std::string& cache_dir, std::string_view kind,
                             std::uint64_t key);

// The payload stored at `path` under `schema` and `key`; nothing when absent, unreadable, not
// a regular file, or another schema's or key's.
std::optional<nlohmann::json> read_parse_cache(const std::string& path, std::string_view schema,
                                               std::uint64_t key);

// Stores `payload` at `path` under `schema` and `key`, creating the directory.
Status write_parse_cache(const std::string& path, std::string_view schema, std::uint64_t key,
                         nlohmann::json payload);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_PARSE_CACHE_H_
