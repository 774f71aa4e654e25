#include "catalog/safetensors.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/atomic_file.h"
#include "core/directory.h"

namespace gpumem {
namespace {

using nlohmann::json;

constexpr const char* kIndexFile = "model.safetensors.index.json";
constexpr const char* kSingleFile = "model.safetensors";

// Bytes [offset, offset + count) of a file; fewer when the file ends first.
Result<std::string> read_range(const std::string& path, std::uint64_t offset, std::uint64_t count) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(open_failure(path, errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string out(count, '\0');
  std::uint64_t got = 0;
  while (got < count) {
    const ssize_t n = ::pread(fd, out.data() + got, count - got, static_cast<off_t>(offset + got));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(path + ": cannot read the file: " + std::strerror(errno));
    }
    got += static_cast<std::uint64_t>(n);
  }
  out.resize(got);
  return out;
}

Result<std::vector<SafetensorsTensor>> read_header_file(const std::string& path) {
  Result<std::string> prefix = read_range(path, 0, 8);
  if (!prefix.ok()) return prefix.status();
  Result<std::uint64_t> n = safetensors_header_length(*prefix, path);
  if (!n.ok()) return n.status();
  Result<std::string> header = read_range(path, 8, *n);
  if (!header.ok()) return header.status();
  if (header->size() != *n) {
    return invalid_input(path + ": the safetensors header is cut short (" +
                         std::to_string(header->size()) + " of " + std::to_string(*n) + " bytes)");
  }
  return parse_safetensors_header(*header, path);
}

std::optional<std::int64_t> nonnegative(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
    return std::nullopt;
  }
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace

Result<std::uint64_t> safetensors_header_length(std::string_view prefix, const std::string& file) {
  if (prefix.size() < 8) return invalid_input(file + ": shorter than a safetensors header");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(prefix[i]);
  if (n == 0 || n > kMaxSafetensorsHeader) {
    return invalid_input(file + ": a safetensors header of " + std::to_string(n) +
                         " bytes; the format allows 1 to " + std::to_string(kMaxSafetensorsHeader));
  }
  return n;
}

Result<std::vector<SafetensorsTensor>> parse_safetensors_header(std::string_view text,
                                                                const std::string& file) {
  const json header = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!header.is_object()) {
    return invalid_input(file + ": the safetensors header is not a JSON object");
  }
  std::vector<SafetensorsTensor> out;
  for (const auto& item : header.items()) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::string& name = item.key();
    const json& entry = item.value();
    if (name == "__metadata__") continue;
    const auto bad = [&](const std::string& what) {
      return invalid_input(file + ": tensor '" + name + "' " + what);
    };
    if (!entry.is_object() || !entry.contains("dtype") || !entry["dtype"].is_string() ||
        !entry.contains("shape") || !entry["shape"].is_array() || !entry.contains("data_offsets") ||
        !entry["data_offsets"].is_array() || entry["data_offsets"].size() != 2) {
      return bad("needs a dtype string, a shape list and two data_offsets");
    }
    SafetensorsTensor t;
    t.name = name;
    t.dtype = entry["dtype"].get<std::string>();
    for (const json& d : entry["shape"]) {
      std::optional<std::int64_t> v = nonnegative(d);
      if (!v) return bad("has a shape entry that is not a non-negative integer");
      t.shape.push_back(*v);
    }
    std::optional<std::int64_t> begin = nonnegative(entry["data_offsets"][0]);
    std::optional<std::int64_t> end = nonnegative(entry["data_offsets"][1]);
    if (!begin || !end || *end < *begin) return bad("has data_offsets that are not [begin, end]");
    t.bytes = *end - *begin;
    out.push_back(std::move(t));
  }
  return out;
}

Result<SafetensorsIndex> parse_safetensors_index(std::string_view text, const std::string& file) {
  const json index = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
    return invalid_input(file + ": a safetensors index needs a 'weight_map' object");
  }
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : index["weight_map"].items()) {
    if (!shard.is_string()) {
      return invalid_input(file + ": 'weight_map' entry '" + tensor + "' is not a file name");
    }
    const std::string name = shard.get<std::string>();
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
      return invalid_input(file + ": 'weight_map' names shard '" + name +
                           "', which is not a file of the checkpoint's directory");
    }
    shards.insert(name);
  }
  SafetensorsIndex out;
  out.shards.assign(shards.begin(), shards.end());
  if (index.contains("metadata") && index["metadata"].is_object() &&
      index["metadata"].contains("total_size")) {
    const json& total = index["metadata"]["total_size"];
    out.total_size = nonnegative(total);
    // Some exporters write the number as a string.
    if (!out.total_size && total.is_string()) {
      const std::string s = total.get<std::string>();
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && ptr == s.data() + s.size() && v >= 0) out.total_size = v;
    }
  }
  return out;
}

Result<std::optional<SafetensorsCheckpoint>> read_safetensors_checkpoint(
    const std::string& dir, const std::string& stored_header_dir) {
  SafetensorsCheckpoint c;
  std::vector<std::string> shards;
  const std::string index_path = dir + "/" + kIndexFile;
  if (is_regular_file_path(index_path)) {
    Result<std::string> text = read_file(index_path, InputKind::kModelConfig);
    if (!text.ok()) return text.status();
    Result<SafetensorsIndex> index = parse_safetensors_index(*text, index_path);
    if (!index.ok()) return index.status();
    shards = index->shards;
    c.index_total_size = index->total_size;
  } else {
    shards.push_back(kSingleFile);
  }
  for (const std::string& shard : shards) {
    std::string path = dir + "/" + shard;
    if (!is_regular_file_path(path)) {
      path = stored_header_dir.empty() ? "" : stored_header_dir + "/" + shard;
      if (path.empty() || !is_regular_file_path(path))
        return std::optional<SafetensorsCheckpoint>();
    }
    Result<std::vector<SafetensorsTensor>> tensors = read_header_file(path);
    if (!tensors.ok()) return tensors.status();
    for (SafetensorsTensor& t : *tensors) c.tensors.push_back(std::move(t));
  }
  c.shards = static_cast<int>(shards.size());
  std::sort(c.tensors.begin(), c.tensors.end(),
            [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.name < b.name; });
  for (size_t i = 1; i < c.tensors.size(); ++i) {
    if (c.tensors[i].name == c.tensors[i - 1].name) {
      return invalid_input(dir + ": tensor '" + c.tensors[i].name +
                           "' is declared by two safetensors headers");
    }
  }
  return std::optional<SafetensorsCheckpoint>(std::move(c));
}

}  // namespace gpumem
