// Building Hugging Face checkpoints and hub caches on disk for tests: a safetensors header of
// given tensors, a snapshot in the cache layout huggingface_hub writes.
#ifndef GPUMEM_TESTS_SUPPORT_HUB_FIXTURE_H_
#define GPUMEM_TESTS_SUPPORT_HUB_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/scratch_dir.h"

namespace gpumem {

struct FixtureTensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::int64_t bytes = 0;
};

// The JSON of a safetensors header declaring `tensors` back to back.
inline std::string safetensors_header_json(const std::vector<FixtureTensor>& tensors) {
  std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::int64_t offset = 0;
  for (const FixtureTensor& t : tensors) {
    json += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) {
      json += (i ? "," : "") + std::to_string(t.shape[i]);
    }
    json += "],\"data_offsets\":[" + std::to_string(offset) + "," +
            std::to_string(offset + t.bytes) + "]}";
    offset += t.bytes;
  }
  return json + "}";
}

// The first 8 + N bytes of a safetensors file declaring `tensors` (no tensor data).
inline std::string safetensors_prefix(const std::vector<FixtureTensor>& tensors) {
  const std::string json = safetensors_header_json(tensors);
  std::string out(8, '\0');
  std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + json;
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh, empty directory under the test's temporary directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = scratch_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// <cache>/models--org--name with refs/main naming `commit` and snapshots/<commit>/ holding
// config.json; returns the snapshot directory.
inline std::filesystem::path cached_snapshot_with(const std::filesystem::path& cache,
                                                  const std::string& folder,
                                                  const std::string& commit,
                                                  const std::string& config_json) {
  const std::filesystem::path repo = cache / folder;
  write_text(repo / "refs" / "main", commit);
  const std::filesystem::path snapshot = repo / "snapshots" / commit;
  write_text(snapshot / "config.json", config_json);
  return snapshot;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_HUB_FIXTURE_H_
