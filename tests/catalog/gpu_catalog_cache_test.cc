// The GPU catalog's cache (catalog/gpu_catalog_cache.h): an entry gives back exactly what the
// YAML files give, is read instead of them while they are unchanged, is never read once one
// changes, is ignored when damaged, and is not made from a catalog with errors or when the
// cache is off.
#include "catalog/gpu_catalog_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "support/cache_dir.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

GpuCatalog load(const std::string& dir) {
  Diagnostics diags;
  Result<GpuCatalog> c = GpuCatalog::load(dir, diags);
  EXPECT_TRUE(c.ok() && diags.empty()) << diags.to_string();
  return c.ok() ? *c : GpuCatalog{};
}

void copy_gpu(const std::string& name, const std::string& dir) {
  fs::copy_file(GPUMEM_SOURCE_DIR "/model/gpu/" + name + ".yaml", dir + "/" + name + ".yaml");
}

// A GPU's SM count as a cache entry holds it (each GPU an array, its name first, sm_count
// seventh); -1 when the entry has no such GPU.
int entry_sm_count(const nlohmann::json& entry, const std::string& name) {
  if (!entry.is_object() || !entry.contains("payload")) return -1;
  for (const nlohmann::json& gpu : entry["payload"]) {
    if (gpu[0] == name) return gpu[6].get<int>();
  }
  return -1;
}

void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = read_file(file.string(), InputKind::kCatalog).value();
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  ASSERT_TRUE(write_file_atomically(file.string(), text).ok());
}

TEST(GpuCatalogCache, EveryBundledGpuComesBackExactly) {
  CacheDir c("gpu-cache-bundled");
  ::setenv("GPUMEM_CACHE_DIR", "off", 1);
  const GpuCatalog parsed = load(GPUMEM_SOURCE_DIR "/model/gpu");
  ASSERT_GE(parsed.gpus().size(), 60u);
  const std::string file = (fs::path(c.input_dir()) / "entry.cbor").string();
  ASSERT_TRUE(write_gpu_cache(file, 42, parsed.gpus()).ok());
  const std::optional<std::vector<GpuSpec>> back = read_gpu_cache(file, 42);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, parsed.gpus());
  EXPECT_FALSE(read_gpu_cache(file, 43).has_value());  // another key's entry is not read
}

TEST(GpuCatalogCache, ReadWhileTheFilesAreUnchangedAndNeverAfterAChange) {
  CacheDir c("gpu-cache-change");
  copy_gpu("h100-sxm-80gb", c.input_dir());
  copy_gpu("h200-sxm-141gb", c.input_dir());
  EXPECT_EQ(load(c.input_dir()).find("h100")->sm_count, 132);
  ASSERT_EQ(c.entries().size(), 1u);
  // The entry is what the next load reads: an edit of the entry shows.
  nlohmann::json entry = read_cache_entry(c.entries()[0]);
  ASSERT_EQ(entry_sm_count(entry, "h100-sxm-80gb"), 132);
  for (nlohmann::json& gpu : entry["payload"]) {
    if (gpu[0] == "h100-sxm-80gb") gpu[6] = 7;
  }
  write_cache_entry(c.entries()[0], entry);
  EXPECT_EQ(load(c.input_dir()).find("h100")->sm_count, 7);
  // A changed file has another key: its new text is read, and cached beside the old entry.
  replace_in(fs::path(c.input_dir()) / "h100-sxm-80gb.yaml", "sm_count: 132", "sm_count: 114");
  EXPECT_EQ(load(c.input_dir()).find("h100")->sm_count, 114);
  EXPECT_EQ(c.entries().size(), 2u);
  // So does a removed one.
  fs::remove(fs::path(c.input_dir()) / "h200-sxm-141gb.yaml");
  EXPECT_EQ(load(c.input_dir()).find("h200"), nullptr);
}

TEST(GpuCatalogCache, ADamagedEntryIsIgnoredAndWrittenAgain) {
  CacheDir c("gpu-cache-damaged");
  copy_gpu("h100-sxm-80gb", c.input_dir());
  (void)load(c.input_dir());
  ASSERT_EQ(c.entries().size(), 1u);
  // The last: two million nested CBOR arrays, which the reader would recurse into until the
  // stack overflowed.
  for (const std::string& junk :
       {std::string("{\"schema\": \"gpumem.gpu-cache/1\""), std::string("[]"),
        std::string("\xff\xfe"), std::string("{\"schema\":\"gpumem.gpu-cache/1\",\"key\":\"x\"}"),
        std::string(2'000'000, '\x81') + '\x00'}) {
    ASSERT_TRUE(write_file_atomically(c.entries()[0].string(), junk).ok());
    EXPECT_EQ(load(c.input_dir()).find("h100")->sm_count, 132) << junk.substr(0, 40);
  }
  EXPECT_EQ(entry_sm_count(read_cache_entry(c.entries()[0]), "h100-sxm-80gb"), 132);
  // A FIFO where the entry goes is not read (it would block): the files are parsed instead.
  const fs::path entry = c.entries()[0];
  fs::remove(entry);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  EXPECT_EQ(load(c.input_dir()).find("h100")->sm_count, 132);
  EXPECT_FALSE(read_gpu_cache(entry.string(), 0).has_value());
}

TEST(GpuCatalogCache, NothingIsCachedFromErrorsOrWhenOff) {
  CacheDir c("gpu-cache-errors");
  copy_gpu("h100-sxm-80gb", c.input_dir());
  ASSERT_TRUE(write_file_atomically(c.input_dir() + "/bad.yaml", "name: bad\n").ok());
  Diagnostics diags;
  ASSERT_TRUE(GpuCatalog::load(c.input_dir(), diags).ok());
  EXPECT_FALSE(diags.empty());
  EXPECT_TRUE(c.entries().empty());
  // Reported again on the next load, as without a cache.
  Diagnostics again;
  ASSERT_TRUE(GpuCatalog::load(c.input_dir(), again).ok());
  EXPECT_EQ(again.to_string(), diags.to_string());
  fs::remove(c.input_dir() + "/bad.yaml");
  ::setenv("GPUMEM_CACHE_DIR", "off", 1);
  (void)load(c.input_dir());
  EXPECT_TRUE(c.entries().empty());
}

}  // namespace
}  // namespace gpumem
