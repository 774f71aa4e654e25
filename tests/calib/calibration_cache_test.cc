// Calibration files through the parse cache (calib/calibration_cache.h): an entry gives back
// exactly what the files give, is read while they are unchanged, is never read once one of
// them or the GPU catalog changes, and a broken file is an error as without a cache.
#include "calib/calibration_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/atomic_file.h"
#include "support/cache_dir.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

// Copies the bundled calibration files into `dir`; their paths, sorted.
std::vector<std::string> copy_bundled(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator(GPUMEM_SOURCE_DIR "/model/calibration")) {
    if (e.path().extension() != ".yaml") continue;
    const fs::path to = fs::path(dir) / e.path().filename();
    fs::copy_file(e.path(), to);
    paths.push_back(to.string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<CalibrationFile> load(const std::string& dir, const std::vector<std::string>& paths,
                                  const GpuCatalog& gpus = test_catalogs().gpus) {
  Diagnostics diags;
  std::optional<std::vector<CalibrationFile>> files =
      load_calibration_files(dir, paths, gpus, diags);
  EXPECT_TRUE(files && diags.empty()) << diags.to_string();
  return files.value_or(std::vector<CalibrationFile>{});
}

// The cache's calibration entries (the GPU catalog the test reads may be cached beside them).
std::vector<fs::path> calibration_entries(const CacheDir& c) {
  std::vector<fs::path> out;
  for (const fs::path& p : c.entries()) {
    if (p.filename().string().starts_with("calibration-")) out.push_back(p);
  }
  return out;
}

bool same(const std::vector<CalibrationFile>& a, const std::vector<CalibrationFile>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].gpu != b[i].gpu || a[i].probe != b[i].probe ||
        a[i].provenance != b[i].provenance || a[i].residuals != b[i].residuals ||
        a[i].constants != b[i].constants) {
      return false;
    }
  }
  return true;
}

// Renames the first "gpu": `from` of the entry's document to `to`; whether there was one.
bool rename_first_gpu(nlohmann::json& doc, const std::string& from, const std::string& to) {
  if (doc.is_object()) {
    if (auto g = doc.find("gpu"); g != doc.end() && *g == from) {
      *g = to;
      return true;
    }
  }
  if (doc.is_structured()) {
    for (nlohmann::json& child : doc) {
      if (rename_first_gpu(child, from, to)) return true;
    }
  }
  return false;
}

TEST(CalibrationCache, TheBundledFilesComeBackExactlyWhileUnchanged) {
  CacheDir c("calibration-cache-bundled");
  const std::vector<std::string> paths = copy_bundled(c.input_dir());
  ASSERT_EQ(paths.size(), 7u);
  std::vector<CalibrationFile> parsed;
  for (const std::string& p : paths) {
    Diagnostics diags;
    parsed.push_back(*load_calibration_file(p, test_catalogs().gpus, diags));
  }
  EXPECT_TRUE(same(load(c.input_dir(), paths), parsed));
  ASSERT_EQ(calibration_entries(c).size(), 1u);
  EXPECT_TRUE(same(load(c.input_dir(), paths), parsed));
  // The entry is what the next load reads: an edit of the entry shows.
  nlohmann::json entry = read_cache_entry(calibration_entries(c)[0]);
  ASSERT_TRUE(rename_first_gpu(entry, "h200-sxm-141gb", "h200-edited"));
  write_cache_entry(calibration_entries(c)[0], entry);
  EXPECT_EQ(load(c.input_dir(), paths)[2].gpu, "h200-edited");  // the first h200 file
}

TEST(CalibrationCache, AChangedFileOrGpuCatalogIsReadAnew) {
  CacheDir c("calibration-cache-change");
  const std::vector<std::string> paths = copy_bundled(c.input_dir());
  (void)load(c.input_dir(), paths);
  // A broken file has another key: it is parsed, and its error reported.
  const std::string file = paths[3];
  const std::string good = read_file(file, InputKind::kCatalog).value();
  ASSERT_TRUE(write_file_atomically(file, good + "surprise: 1\n").ok());
  Diagnostics diags;
  EXPECT_FALSE(load_calibration_files(c.input_dir(), paths, test_catalogs().gpus, diags));
  EXPECT_NE(diags.to_string().find("surprise"), std::string::npos) << diags.to_string();
  EXPECT_EQ(calibration_entries(c).size(), 1u);
  ASSERT_TRUE(write_file_atomically(file, good).ok());
  // A GPU catalog without the file's GPU: the file's check runs again, and fails.
  const std::string gpu_dir = c.input_dir() + "/gpu";
  fs::create_directories(gpu_dir);
  fs::copy_file(GPUMEM_SOURCE_DIR "/model/gpu/h100-sxm-80gb.yaml", gpu_dir + "/h100-sxm-80gb.yaml");
  Diagnostics gpu_diags;
  const GpuCatalog without_h200 = GpuCatalog::load(gpu_dir, gpu_diags).value();
  Diagnostics missing;
  EXPECT_FALSE(load_calibration_files(c.input_dir(), paths, without_h200, missing));
  EXPECT_NE(missing.to_string().find("unknown GPU 'h200-sxm-141gb'"), std::string::npos)
      << missing.to_string();
}

}  // namespace
}  // namespace gpumem
