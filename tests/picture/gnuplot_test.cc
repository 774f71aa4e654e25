// The memory map's gnuplot script holds the numbers of the map, and gnuplot turns it into a
// PNG that decodes (libpng) at the size asked, and an SVG; a bad name or an unwritable
// directory leaves no file.
#include "picture/gnuplot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "core/atomic_file.h"
#include "picture/two_gpu_ledger.h"
#include "support/bundled_scenario.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

bool has_line(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Gnuplot, TheScriptStacksTheMapsNumbersInGiBAndMarksTheFailure) {
  const std::string script = memory_map_script(memory_map(two_gpu_ledger()), PictureFormat::kPng);
  EXPECT_TRUE(has_line(script, "set terminal pngcairo size 1200,700 noenhanced")) << script;
  EXPECT_TRUE(has_line(script, "set output"));
  // The tallest stack, GPU 1's 8792 MiB with its request, is 8.5859375 GiB; 15 % above it.
  EXPECT_TRUE(has_line(script, "set yrange [0:9.874]")) << script;
  EXPECT_TRUE(has_line(script,
                       "set arrow from graph 0, first 8.000000 to graph 1, first 8.000000 nohead "
                       "dt 2 lw 2 lc rgb '#c00000' front"));
  EXPECT_TRUE(has_line(script,
                       "set title 'two-gpus — sglang 0.5.9 on 2× test-gpu' . \"\\n\" . 'does not "
                       "fit: GPU 1 runs out of memory at kv: asks 6.84 GiB with 6.25 GiB free'"))
      << script;
  EXPECT_TRUE(has_line(
      script,
      "set label 'OOM' at first 1, first 8.585938 center offset 0,1 tc rgb '#c00000' front"));
  // Categories that are zero on both GPUs (communication, graphs, ...) are left out.
  EXPECT_TRUE(has_line(script, "\"GPU 0\" 0.250000 0.500000 1.000000 4.000000 2.250000 0.000000"));
  EXPECT_TRUE(has_line(script, "\"GPU 1\" 0.250000 0.500000 1.000000 0.000000 0.000000 6.835938"));
  EXPECT_TRUE(has_line(
      script,
      "plot $map using 2:xtic(1) title 'other processes' lc rgb '#d9d9d9', '' using 3 title "
      "'context' lc rgb '#7f7f7f', '' using 4 title 'weights' lc rgb '#1f77b4', '' using 5 "
      "title 'kv' lc rgb '#2ca02c', '' using 6 title 'free' lc rgb '#f2f2f2', '' using 7 "
      "title 'request that did not fit' lc rgb '#c00000' fillstyle pattern 4, NaN title "
      "'capacity 8.00 GiB' with lines dt 2 lw 2 lc rgb '#c00000'"))
      << script;
}

MemoryMap seed_map() { return memory_map(simulate_bundled("seed-kimi-k2-pcie8-mfs055")); }

// Each GPU's KV budget in its free segment, and the rule in the title.
TEST(Gnuplot, TheKvBudgetIsWrittenOnEachBar) {
  const std::string script = memory_map_script(seed_map(), PictureFormat::kPng);
  EXPECT_NE(script.find("'KV budget in GiB = free after weights - kept back (F x (1 - "
                        "mem_fraction_static))'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("set label 'free 22.5' . \"\\n\" . 'kept 42.3' . \"\\n\" . 'KV -19.8' at "
                        "first 7, first "),
            std::string::npos)
      << script;
}

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("gpumem-plot-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(Gnuplot, APngOfTheSeedScenarioDecodesAtTheSizeAsked) {
  const fs::path png = scratch_dir() / "seed.png";
  const Status drawn = draw_memory_map(seed_map(), png.string());
  ASSERT_TRUE(drawn.ok()) << drawn.message();
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&image, png.c_str())) << image.message;
  EXPECT_EQ(image.width, 1200u);
  EXPECT_EQ(image.height, 700u);
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  ASSERT_TRUE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) << image.message;
  std::set<unsigned> colours;
  bool capacity_line = false;
  for (size_t i = 0; i + 2 < pixels.size(); i += 3) {
    colours.insert(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]);
    capacity_line =
        capacity_line || (pixels[i] == 0xc0 && pixels[i + 1] == 0 && pixels[i + 2] == 0);
  }
  // Bars of several categories, text and grid: far more than a blank page's one colour.
  EXPECT_GT(colours.size(), 8u);
  EXPECT_TRUE(capacity_line);
  fs::remove_all(png.parent_path());
}

TEST(Gnuplot, AnSvgNamesTheCapacity) {
  const fs::path svg = scratch_dir() / "seed.svg";
  ASSERT_TRUE(draw_memory_map(seed_map(), svg.string()).ok());
  Result<std::string> text = read_file(svg.string(), InputKind::kLedger);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("<svg"), std::string::npos);
  EXPECT_NE(text->find("capacity 94.97 GiB"), std::string::npos) << text->substr(0, 2000);
  fs::remove_all(svg.parent_path());
}

TEST(Gnuplot, ANameWithoutAPictureExtensionIsRefused) {
  const Status s = draw_memory_map(seed_map(), "/tmp/map.jpg");
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message(), "/tmp/map.jpg: the picture's name must end in .svg or .png");
}

// Scenario text that would run commands if gnuplot expanded it: backquotes and $(...) for the
// shell, system() and @macros for gnuplot, quotes and newlines to end a string or a line.
constexpr const char* kHostile =
    "x`touch {0}/backquote`'\"$(touch {0}/dollar) system('touch {0}/system') @m\n"
    "EOD\n!touch {0}/bang\n\"`touch {0}/second`";

std::string hostile(const fs::path& dir) { return fmt::format(kHostile, dir.string()); }

TEST(Gnuplot, ScenarioTextReachesGnuplotOnlyAsTextItNeverExpands) {
  MemoryMap map = memory_map(two_gpu_ledger());
  const std::string name = hostile("/d");
  map.title = name;
  map.bars[0].label = name;
  const std::string script = memory_map_script(map, PictureFormat::kSvg);
  // The title: single-quoted pieces (quote doubled) joined by the one literal "\n".
  EXPECT_TRUE(has_line(script,
                       "set title 'x`touch /d/backquote`''\"$(touch /d/dollar) system(''touch "
                       "/d/system'') @m' . \"\\n\" . 'EOD' . \"\\n\" . '!touch /d/bang' . "
                       "\"\\n\" . '\"`touch /d/second`' . \"\\n\" . 'does not fit: GPU 1 runs out "
                       "of memory at kv: asks 6.84 GiB with 6.25 GiB free'"))
      << script;
  // The bar's label: one double-quoted data column on one line, its quotes and newlines gone.
  EXPECT_TRUE(has_line(script,
                       "\"x`touch /d/backquote`''$(touch /d/dollar) system('touch /d/system') @m "
                       "EOD !touch /d/bang '`touch /d/second`\" 0.250000 0.500000 1.000000 "
                       "4.000000 2.250000 0.000000"))
      << script;
}

TEST(Gnuplot, DrawingAHostileNameRunsNothingAndShowsTheNameAsWritten) {
  const fs::path dir = scratch_dir() / "hostile";
  fs::create_directories(dir);
  MemoryMap map = memory_map(two_gpu_ledger());
  map.title = hostile(dir);
  map.bars[1].label = hostile(dir);
  const fs::path svg = dir / "map.svg";
  ASSERT_TRUE(draw_memory_map(map, svg.string()).ok());
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(dir)) made.push_back(e.path().filename().string());
  EXPECT_EQ(made, std::vector<std::string>{"map.svg"});
  const Result<std::string> text = read_file(svg.string(), InputKind::kLedger);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("system('touch " + dir.string() + "/system') @m"), std::string::npos);
  fs::remove_all(dir.parent_path());
}

TEST(Gnuplot, AnUnwritableDirectoryLeavesNoFile) {
  const fs::path dir = scratch_dir() / "missing";
  const Status s = draw_memory_map(seed_map(), (dir / "map.png").string());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), (dir / "map.png").string() + ": cannot write: No such file or directory");
  EXPECT_FALSE(fs::exists(dir));
  fs::remove_all(dir.parent_path());
}

}  // namespace
}  // namespace gpumem
