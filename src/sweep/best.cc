#include "sweep/best.h"

#include <charconv>

#include "core/spelling.h"

namespace gpumem::sweep {
namespace {

struct Column {
  std::string_view name;
  std::string_view short_name;
};
constexpr Column kColumns[] = {{"kv_tokens", "tokens"},
                               {"kv_tokens_total", "total_tokens"},
                               {"max_running_requests", "requests"},
                               {"min_headroom", "headroom"}};

std::optional<double> number(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> value_of(const PointResult& r, const Grid& grid, size_t point,
                               const BestBy& by) {
  if (by.axis) return number(grid.value(point, *by.axis));
  const auto count = [](const std::optional<std::int64_t>& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  if (by.key == "kv_tokens") return count(r.kv_tokens);
  if (by.key == "kv_tokens_total") return count(r.kv_tokens_total);
  if (by.key == "max_running_requests") return count(r.max_running_requests);
  if (r.min_headroom) return static_cast<double>(r.min_headroom->value());
  return std::nullopt;
}

}  // namespace

std::string BestBy::text() const { return std::string(largest ? "largest " : "smallest ") + key; }

std::optional<BestBy> parse_best(std::string_view text, const std::vector<Axis>& axes,
                                 Diagnostics& diags) {
  BestBy by;
  std::string_view key = text;
  if (key.starts_with("largest:")) {
    key.remove_prefix(8);
  } else if (key.starts_with("smallest:")) {
    by.largest = false;
    key.remove_prefix(9);
  }
  for (const Column& c : kColumns) {
    if (key == c.name || key == c.short_name) {
      by.key = std::string(c.name);
      return by;
    }
  }
  for (size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].key != key) continue;
    for (const std::string& v : axes[a].values) {
      if (!number(v)) {
        diags.error({"--best", 0, 0}, "the values of --vary '" + axes[a].key +
                                          "' are not numbers ('" + v +
                                          "'): --best can only compare numbers");
        return std::nullopt;
      }
    }
    by.key = axes[a].key;
    by.axis = a;
    return by;
  }
  std::vector<std::string> names;
  for (const Column& c : kColumns) {
    names.emplace_back(c.name);
    names.emplace_back(c.short_name);
  }
  for (const Axis& a : axes) names.push_back(a.key);
  diags.error({"--best", 0, 0},
              "'" + std::string(key) +
                  "' is neither a result column (kv_tokens, kv_tokens_total, "
                  "max_running_requests, min_headroom) nor a --vary key, in largest:KEY or "
                  "smallest:KEY" +
                  did_you_mean(std::string(key), names));
  return std::nullopt;
}

BestPoint::BestPoint(const Grid& grid, BestBy by) : grid_(grid), by_(std::move(by)) {}

void BestPoint::offer(size_t point, const PointResult& r) {
  if (r.status != PointStatus::kFits) return;
  const std::optional<double> v = value_of(r, grid_, point, by_);
  if (!v) return;
  const std::int64_t headroom = r.min_headroom ? r.min_headroom->value() : 0;
  const bool better = !point_ || (by_.largest ? *v > value_ : *v < value_) ||
                      (*v == value_ && headroom > headroom_);
  if (!better) return;
  point_ = point;
  result_ = r;
  value_ = *v;
  headroom_ = headroom;
}

}  // namespace gpumem::sweep
