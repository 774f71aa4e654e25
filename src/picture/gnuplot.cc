#include "picture/gnuplot.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/atomic_file.h"
#include "core/child_process.h"
#include "runtime/constants_note.h"

namespace gpumem {
namespace {

constexpr int kWidthPx = 1200;
constexpr int kHeightPx = 700;
constexpr const char* kCapacityColour = "#c00000";

// One stacked segment of every bar, bottom to top.
struct Series {
  std::string title;
  std::string colour;
  Bytes (*value)(const MemoryBar&);
};

// Colours follow the categories' order in device/category.h.
constexpr std::array<const char*, kCategoryCount> kCategoryColours = {
    "#7f7f7f", "#9467bd", "#1f77b4", "#2ca02c", "#ff7f0e", "#8c564b", "#e377c2", "#bcbd22"};

double gib(Bytes b) { return static_cast<double>(b.value()) / (1LL << 30); }

// Text from the scenario (its name, labels) as a gnuplot string expression that gnuplot
// never expands: single-quoted strings take no backquote command substitution, no macro and
// no escape (the only special character is the quote itself, written twice). A newline
// cannot stand in one, so lines are joined with the one double-quoted string that holds no
// input text, "\n"; other control characters become spaces.
std::string gnuplot_literal(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\n') {
      out += "' . \"\\n\" . '";
    } else if (c == '\'') {
      out += "''";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "'";
}

// `text` broken at spaces into lines of at most kTitleColumns characters, which the
// picture's width holds.
std::string wrapped(std::string_view text) {
  constexpr size_t kTitleColumns = 110;
  std::string out;
  size_t line = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (line > 0 && line + 1 + word.size() > kTitleColumns) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    start = end + 1;
  }
  return out;
}

// A bar's label as a column of the inline data block: gnuplot reads data lines without
// substitution, and a label stays one double-quoted column on one line — no quote, newline or
// other control character from the input survives to end the column or the line.
std::string data_label(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') {
      out += '\'';
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <size_t C>
Bytes held(const MemoryBar& b) {
  return b.held[C];
}

std::vector<Series> all_series() {
  std::vector<Series> s;
  s.push_back({"other processes", "#d9d9d9", [](const MemoryBar& b) { return b.other_processes; }});
  [&]<size_t... C>(std::index_sequence<C...>) {
    (s.push_back({std::string(kCategoryNames[C]), kCategoryColours[C], &held<C>}), ...);
  }
  (std::make_index_sequence<kCategoryCount>{});
  s.push_back({"free", "#f2f2f2", [](const MemoryBar& b) { return b.free; }});
  s.push_back({"request that did not fit", kCapacityColour,
               [](const MemoryBar& b) { return b.requested; }});
  return s;
}

}  // namespace

Result<PictureFormat> picture_format_for(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg") return PictureFormat::kSvg;
  if (ext == ".png") return PictureFormat::kPng;
  return invalid_input(path + ": the picture's name must end in .svg or .png");
}

std::string memory_map_script(const MemoryMap& map, PictureFormat format) {
  // A series that is zero on every GPU would only crowd the key, except free, which shows
  // the capacity left even when it is all used.
  std::vector<Series> shown;
  for (Series& s : all_series()) {
    const bool any = std::any_of(map.bars.begin(), map.bars.end(),
                                 [&](const MemoryBar& b) { return s.value(b).value() > 0; });
    if (any || s.title == "free") shown.push_back(std::move(s));
  }
  double capacity = 0;
  double top = 0;
  for (const MemoryBar& b : map.bars) {
    capacity = std::max(capacity, gib(b.total));
    double stack = 0;
    for (const Series& s : shown) stack += std::max(0.0, gib(s.value(b)));
    top = std::max(top, stack);
  }
  // Room above the tallest bar for its marks, and for three lines of KV budget when shown.
  const bool budgets = std::any_of(map.bars.begin(), map.bars.end(),
                                   [](const MemoryBar& b) { return b.kv_budget.has_value(); });
  top = std::max(top, capacity) * (budgets ? 1.35 : 1.15);

  std::string title = map.title + "\n" + wrapped(map.verdict);
  if (!map.kept_back.empty()) {
    title +=
        "\n" + wrapped("KV budget in GiB = free after weights - kept back (" + map.kept_back + ")");
  }
  if (!map.calibrated) {
    title += "\nuncalibrated constants for this GPU: " + uncalibrated_source(map.calibration);
  }
  std::string out;
  if (format == PictureFormat::kPng) {
    out += fmt::format("set terminal pngcairo size {},{} noenhanced\n", kWidthPx, kHeightPx);
  } else {
    out += fmt::format("set terminal svg size {},{} noenhanced\n", kWidthPx, kHeightPx);
  }
  out += "set output\n";  // standard output
  out += "set title " + gnuplot_literal(title) + "\n";
  out += "set style data histograms\nset style histogram rowstacked\n";
  out += "set style fill solid 0.9 border rgb '#404040'\nset boxwidth 0.6\n";
  out += "set ylabel 'GiB'\nset grid ytics\nset key outside right top vertical\n";
  out += fmt::format("set yrange [0:{:.3f}]\n", top);
  if (map.bars.size() > 8) out += "set xtics rotate by -45\n";
  out += fmt::format(
      "set arrow from graph 0, first {0:.6f} to graph 1, first {0:.6f} nohead dt 2 lw 2 "
      "lc rgb '{1}' front\n",
      capacity, kCapacityColour);
  // A short mark above each GPU that did not complete; the title says where and why.
  for (size_t i = 0; i < map.bars.size(); ++i) {
    const MemoryBar& b = map.bars[i];
    if (b.outcome == StepOutcome::kOk) continue;
    double stack = 0;
    for (const Series& s : shown) stack += std::max(0.0, gib(s.value(b)));
    const char* mark = b.outcome == StepOutcome::kOutOfMemory ? "OOM"
                       : b.outcome == StepOutcome::kAborted   ? "aborted"
                                                              : "error";
    out += fmt::format(
        "set label '{}' at first {}, first {:.6f} center offset 0,1 tc rgb '{}' front\n", mark, i,
        std::max(stack, capacity), kCapacityColour);
  }
  // Each GPU's KV budget in three lines: what it starts from, what the engine keeps back,
  // what the KV cache gets (negative: the cause of an engine's "not enough"). Inside the free
  // segment when it has room for them, else above the bar.
  for (size_t i = 0; i < map.bars.size(); ++i) {
    const MemoryBar& b = map.bars[i];
    if (!b.kv_budget) continue;
    double stack = 0;
    for (const Series& s : shown) stack += std::max(0.0, gib(s.value(b)));
    const double free = gib(b.free);
    const bool inside = free >= top * 0.12;
    const double y = inside ? stack - free / 2 : std::max(stack, capacity);
    const std::string text =
        fmt::format("free {:.1f}\nkept {:.1f}\nKV {:.1f}", gib(b.kv_budget->free_after_weights),
                    gib(b.kv_budget->kept_back), gib(b.kv_budget->kv_cache));
    out +=
        fmt::format("set label {} at first {}, first {:.6f} center offset 0,{} font ',9' front\n",
                    gnuplot_literal(text), i, y, inside ? 0 : 4);
  }
  // The bars, one row per GPU; every value in GiB. A category a start-up gave back in full
  // nets to zero; a negative net (never produced by the engines) is drawn as zero.
  out += "$map << EOD\n";
  for (const MemoryBar& b : map.bars) {
    out += data_label(b.label);
    for (const Series& s : shown) out += fmt::format(" {:.6f}", std::max(0.0, gib(s.value(b))));
    out += "\n";
  }
  out += "EOD\n";
  out += "plot ";
  for (size_t i = 0; i < shown.size(); ++i) {
    const Series& s = shown[i];
    out += i == 0 ? "$map using 2:xtic(1)" : fmt::format(", '' using {}", i + 2);
    out += " title " + gnuplot_literal(s.title) + " lc rgb '" + s.colour + "'";
    if (s.title == "request that did not fit") out += " fillstyle pattern 4";
  }
  // The capacity line drawn above, named in the key through an empty series.
  out += fmt::format(", NaN title 'capacity {:.2f} GiB' with lines dt 2 lw 2 lc rgb '{}'\n",
                     capacity, kCapacityColour);
  return out;
}

Status draw_memory_map(const MemoryMap& map, const std::string& path) {
  Result<PictureFormat> format = picture_format_for(path);
  if (!format.ok()) return format.status();
  // The script goes through gnuplot's standard input: no temporary file to name or clean up.
  Result<ChildResult> run = run_child({"gnuplot"}, memory_map_script(map, *format));
  if (!run.ok()) {
    if (run.status().code() == StatusCode::kNotFound) {
      return not_found(
          "gnuplot is not installed: gpumem plot draws with it (Debian package gnuplot-nox, "
          "installed by scripts/setup.sh)");
    }
    return run.status();
  }
  if (run->exit_code != 0 || run->out.empty()) {
    return internal_error(fmt::format("gnuplot failed (exit {}): {}", run->exit_code, run->err));
  }
  return write_file_atomically(path, run->out);
}

}  // namespace gpumem
