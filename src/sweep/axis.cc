#include "sweep/axis.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "core/spelling.h"
#include "engine/engine_model.h"
#include "engine/flag_table.h"

namespace gpumem::sweep {
namespace {

constexpr std::string_view kHardwareKeys[] = {"hardware.gpu", "hardware.count", "hardware.nodes",
                                              "hardware.interconnect"};

SourceLoc at(const Axis& axis, int column) { return {axis.loc.file, axis.loc.line, column}; }

// A decimal written as digits with an optional sign and point: its value times 10^decimals.
struct Decimal {
  std::int64_t scaled = 0;
  int decimals = 0;
};

std::optional<Decimal> parse_decimal(std::string_view s) {
  const size_t point = s.find('.');
  const std::string_view whole = s.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? "" : s.substr(point + 1);
  if (fraction.size() > 9 || (point != std::string_view::npos && fraction.empty())) {
    return std::nullopt;
  }
  std::string digits(whole);
  digits += fraction;
  const bool negative = !digits.empty() && digits[0] == '-';
  const std::string_view magnitude = std::string_view(digits).substr(negative ? 1 : 0);
  if (magnitude.empty() || magnitude.size() > 17) return std::nullopt;
  for (char c : magnitude) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::int64_t v = 0;
  std::from_chars(magnitude.data(), magnitude.data() + magnitude.size(), v);
  return Decimal{negative ? -v : v, static_cast<int>(fraction.size())};
}

std::int64_t power_of_ten(int n) {
  std::int64_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

std::string format_decimal(std::int64_t scaled, int decimals) {
  const bool negative = scaled < 0;
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(scaled) : static_cast<std::uint64_t>(scaled);
  const std::uint64_t unit = static_cast<std::uint64_t>(power_of_ten(decimals));
  std::string out = negative ? "-" : "";
  out += std::to_string(magnitude / unit);
  if (decimals > 0) out += fmt::format(".{:0{}}", magnitude % unit, decimals);
  return out;
}

// Expands `spec` (at 1-based `column`) when it is a range A..B:STEP; nullopt when it is not
// one, an empty list (errors reported) when it is a bad one.
std::optional<std::vector<std::string>> expand_range(const Axis& axis, std::string_view spec,
                                                     int column, Diagnostics& diags) {
  const size_t dots = spec.find("..");
  const size_t colon = spec.rfind(':');
  if (dots == std::string_view::npos) return std::nullopt;
  const std::string form =
      "a range is A..B:STEP, e.g. 0.80..0.90:0.02; got '" + std::string(spec) + "'";
  if (colon == std::string_view::npos || colon < dots) {
    diags.error(at(axis, column), form);
    return std::vector<std::string>{};
  }
  const std::optional<Decimal> a = parse_decimal(spec.substr(0, dots));
  const std::optional<Decimal> b = parse_decimal(spec.substr(dots + 2, colon - dots - 2));
  const std::optional<Decimal> step = parse_decimal(spec.substr(colon + 1));
  if (!a || !b || !step) {
    diags.error(at(axis, column), form);
    return std::vector<std::string>{};
  }
  const int decimals = std::max({a->decimals, b->decimals, step->decimals});
  const std::int64_t first = a->scaled * power_of_ten(decimals - a->decimals);
  const std::int64_t last = b->scaled * power_of_ten(decimals - b->decimals);
  const std::int64_t by = step->scaled * power_of_ten(decimals - step->decimals);
  if (by <= 0) {
    diags.error(
        at(axis, column + static_cast<int>(colon) + 1),
        "the range's step must be positive; got '" + std::string(spec.substr(colon + 1)) + "'");
    return std::vector<std::string>{};
  }
  if (last < first) {
    diags.error(at(axis, column),
                "the range's end is below its start in '" + std::string(spec) + "'");
    return std::vector<std::string>{};
  }
  const std::int64_t count = (last - first) / by + 1;
  if (count > static_cast<std::int64_t>(kMaxAxisValues)) {
    diags.error(at(axis, column), "the range '" + std::string(spec) + "' has " +
                                      std::to_string(count) + " values; at most " +
                                      std::to_string(kMaxAxisValues) + " are allowed");
    return std::vector<std::string>{};
  }
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    values.push_back(format_decimal(first + i * by, decimals));
  return values;
}

bool looks_like_env_name(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// The scenario's engine; check_axis is only called for scenarios whose engine is modelled.
const EngineModel& engine_of(const Scenario& base) { return *find_engine(base.engine.name); }

std::vector<std::string> flag_names(std::span<const FlagSpec> table) {
  std::vector<std::string> names;
  for (const FlagSpec& f : table) {
    names.emplace_back(f.name);
    for (std::string_view a : f.aliases) names.emplace_back(a);
  }
  return names;
}

// Every key a sweep knows for `engine`, for did-you-mean.
std::vector<std::string> all_keys(const EngineModel& engine) {
  std::vector<std::string> keys = flag_names(engine.flags());
  for (std::string_view k : kHardwareKeys) keys.emplace_back(k);
  for (std::string_view n : engine.environment()) keys.emplace_back(n);
  return keys;
}

bool check_flag(Axis& axis, const Scenario& base, Diagnostics& diags) {
  const EngineModel& engine = engine_of(base);
  const std::string title(engine.title());
  const std::span<const FlagSpec> table = engine.flags();
  const std::string flag = engine.canonical_flag(axis.key);
  const FlagSpec* spec = find_flag(flag, table);
  if (spec == nullptr) {
    diags.error(at(axis, 1), "unknown " + title + " flag '" + axis.key + "'" +
                                 did_you_mean(axis.key, flag_names(table)));
    return false;
  }
  if (!spec->affects_memory) {
    diags.error(at(axis, 1), "'" + axis.key + "' does not change start-up memory in gpumem's " +
                                 title + " model; sweeping it changes nothing");
    return false;
  }
  if (spec->type == FlagType::kIntList || spec->type == FlagType::kList) {
    diags.error(at(axis, 1),
                "'" + axis.key + "' takes a list of values; a sweep varies flags of one value");
    return false;
  }
  axis.kind = AxisKind::kFlag;
  axis.name = std::string(spec->name);
  const size_t errors_before = diags.count();
  for (size_t i = 0; i < axis.values.size(); ++i) {
    EngineArg arg;
    arg.flag = flag;
    arg.values = {axis.values[i]};
    arg.flag_loc = at(axis, 1);
    arg.value_loc = at(axis, axis.value_columns[i]);
    read_flags({&arg, 1}, {spec, 1}, title, diags);
  }
  return diags.count() == errors_before;
}

bool check_count(Axis& axis, const std::string& what, int highest, Diagnostics& diags) {
  bool ok = true;
  for (size_t i = 0; i < axis.values.size(); ++i) {
    int v = 0;
    const std::string& s = axis.values[i];
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || v < 1 || v > highest) {
      diags.error(at(axis, axis.value_columns[i]),
                  "'" + axis.key + "' (" + what + ") must be between 1 and " +
                      std::to_string(highest) + ", got '" + s + "'");
      ok = false;
    }
  }
  return ok;
}

bool check_hardware(Axis& axis, const GpuCatalog& gpus, Diagnostics& diags) {
  bool ok = true;
  if (axis.key == "hardware.gpu") {
    axis.kind = AxisKind::kGpu;
    for (size_t i = 0; i < axis.values.size(); ++i) {
      if (gpus.find(axis.values[i]) == nullptr) {
        diags.error(
            at(axis, axis.value_columns[i]),
            "unknown GPU '" + axis.values[i] + "'" + did_you_mean(axis.values[i], gpus.names()));
        ok = false;
      }
    }
  } else if (axis.key == "hardware.count") {
    axis.kind = AxisKind::kGpuCount;
    ok = check_count(axis, "GPUs per node", 64, diags);
  } else if (axis.key == "hardware.nodes") {
    axis.kind = AxisKind::kNodes;
    ok = check_count(axis, "nodes", 1024, diags);
  } else if (axis.key == "hardware.interconnect") {
    axis.kind = AxisKind::kInterconnect;
    for (size_t i = 0; i < axis.values.size(); ++i) {
      if (axis.values[i] != "nvlink" && axis.values[i] != "pcie") {
        diags.error(at(axis, axis.value_columns[i]),
                    "'hardware.interconnect' must be nvlink or pcie, got '" + axis.values[i] + "'");
        ok = false;
      }
    }
  } else {
    std::vector<std::string> keys(std::begin(kHardwareKeys), std::end(kHardwareKeys));
    diags.error(at(axis, 1),
                "unknown hardware key '" + axis.key + "'" + did_you_mean(axis.key, keys));
    return false;
  }
  return ok;
}

bool check_env(Axis& axis, const Scenario& base, Diagnostics& diags) {
  const EngineModel& engine = engine_of(base);
  const std::string name = axis.key.starts_with("env.") ? axis.key.substr(4) : axis.key;
  const std::span<const std::string_view> known = engine.environment();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::vector<std::string> names(known.begin(), known.end());
    diags.error(at(axis, 1), "environment variable '" + name + "' does not change start-up " +
                                 "memory in gpumem's " + std::string(engine.title()) + " model" +
                                 did_you_mean(name, names));
    return false;
  }
  axis.kind = AxisKind::kEnv;
  axis.name = name;
  const size_t errors_before = diags.count();
  for (size_t i = 0; i < axis.values.size(); ++i) {
    ScenarioEngine probe;
    probe.env.push_back({name, axis.values[i], at(axis, 1), at(axis, axis.value_columns[i])});
    engine.check_environment(probe, diags);
  }
  return diags.count() == errors_before;
}

}  // namespace

std::optional<Axis> parse_axis(std::string_view argument, int ordinal, Diagnostics& diags) {
  Axis axis;
  axis.loc = {"--vary", ordinal, 1};
  const size_t equals = argument.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    diags.error(at(axis, 1),
                "expected KEY=V1,V2,... or KEY=A..B:STEP (e.g. "
                "--mem-fraction-static=0.80,0.85 or --cuda-graph-max-bs=8..64:8), "
                "got '" +
                    std::string(argument) + "'");
    return std::nullopt;
  }
  axis.key = std::string(argument.substr(0, equals));
  const std::string_view spec = argument.substr(equals + 1);
  const int spec_column = static_cast<int>(equals) + 2;
  const size_t errors_before = diags.count();
  if (std::optional<std::vector<std::string>> range =
          expand_range(axis, spec, spec_column, diags)) {
    axis.values = std::move(*range);
    axis.value_columns.assign(axis.values.size(), spec_column);
  } else {
    size_t start = 0;
    while (true) {
      const size_t comma = spec.find(',', start);
      const std::string_view item = spec.substr(start, comma - start);
      const int column = spec_column + static_cast<int>(start);
      if (item.empty()) {
        diags.error(at(axis, column), "empty value in '" + std::string(spec) + "'");
      } else if (axis.values.size() == kMaxAxisValues) {
        diags.error(at(axis, column), "more than " + std::to_string(kMaxAxisValues) + " values");
        break;
      } else {
        axis.values.emplace_back(item);
        axis.value_columns.push_back(column);
      }
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  if (diags.count() != errors_before) return std::nullopt;
  return axis;
}

bool check_axis(Axis& axis, const Scenario& base, const GpuCatalog& gpus, Diagnostics& diags) {
  if (axis.key.starts_with("-")) return check_flag(axis, base, diags);
  if (axis.key.starts_with("hardware.")) return check_hardware(axis, gpus, diags);
  if (axis.key.starts_with("env.") || looks_like_env_name(axis.key)) {
    return check_env(axis, base, diags);
  }
  // A hardware field without its section ("gpu") is a slip no spelling distance catches.
  const std::string in_hardware = "hardware." + axis.key;
  const bool is_hardware_field = std::find(std::begin(kHardwareKeys), std::end(kHardwareKeys),
                                           in_hardware) != std::end(kHardwareKeys);
  diags.error(at(axis, 1),
              "unknown sweep key '" + axis.key +
                  "': a key is an engine flag (--name), hardware.gpu, "
                  "hardware.count, hardware.nodes, hardware.interconnect or an "
                  "environment variable" +
                  (is_hardware_field ? "; did you mean '" + in_hardware + "'?"
                                     : did_you_mean(axis.key, all_keys(engine_of(base)))));
  return false;
}

}  // namespace gpumem::sweep
