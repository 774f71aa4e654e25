// The tensors a safetensors checkpoint declares, read from its headers alone.
//
// A safetensors file starts with 8 bytes holding N (little-endian u64), then N bytes of JSON:
// for every tensor its dtype ("BF16", "F8_E4M3", ...), shape and [begin, end) byte offsets
// into the data that follows, plus an optional "__metadata__" map of strings. A sharded
// checkpoint adds model.safetensors.index.json, whose "weight_map" names each tensor's shard
// and whose "metadata.total_size" is what the shards' tensors take together. Neither needs
// the weights themselves, so a checkpoint's tensors can be known from a few kilobytes
// (hub downloads fetch only these bytes, with HTTP Range requests).
#ifndef GPUMEM_CATALOG_SAFETENSORS_H_
#define GPUMEM_CATALOG_SAFETENSORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpumem {

// The largest header gpumem reads: the safetensors format's own limit (100,000,000 bytes,
// safetensors lib.rs MAX_HEADER_SIZE).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;  // as the header writes it: "BF16", "F32", "F8_E4M3", "I32", "U8", ...
  std::vector<std::int64_t> shape;
  std::int64_t bytes = 0;  // end - begin of its data offsets

  friend bool operator==(const SafetensorsTensor&, const SafetensorsTensor&) = default;
};

struct SafetensorsCheckpoint {
  std::vector<SafetensorsTensor> tensors;  // sorted by name
  int shards = 0;
  std::optional<std::int64_t> index_total_size;  // the index's metadata.total_size

  friend bool operator==(const SafetensorsCheckpoint&, const SafetensorsCheckpoint&) = default;
};

// N from the 8-byte prefix; an error when N is 0 or above kMaxSafetensorsHeader.
Result<std::uint64_t> safetensors_header_length(std::string_view prefix, const std::string& file);

// The tensors of one header's JSON text (the N bytes after the prefix); `file` names it in
// errors. Offsets must be well formed; the tensors come sorted by name.
Result<std::vector<SafetensorsTensor>> parse_safetensors_header(std::string_view json,
                                                                const std::string& file);

// The shard file names of a model.safetensors.index.json, sorted and unique, and its
// metadata.total_size when given.
struct SafetensorsIndex {
  std::vector<std::string> shards;
  std::optional<std::int64_t> total_size;
};
Result<SafetensorsIndex> parse_safetensors_index(std::string_view json, const std::string& file);

// The checkpoint of a snapshot directory: its model.safetensors.index.json and every shard's
// header (read from the shard, else from `stored_header(shard)` where a download kept it), or
// a single model.safetensors. nullopt when the directory has neither an index nor a single
// file, or when some shard's header is not at hand; an error when a file at hand is
// malformed.
Result<std::optional<SafetensorsCheckpoint>> read_safetensors_checkpoint(
    const std::string& dir, const std::string& stored_header_dir);

}  // namespace gpumem

#endif  // GPUMEM_CATALOG_SAFETENSORS_H_
