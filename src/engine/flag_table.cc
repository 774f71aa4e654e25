#include "engine/flag_table.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "core/lower_case.h"
#include "core/spelling.h"

namespace gpumem {

const FlagValues::Entry* FlagValues::find(std::string_view flag) const {
  for (const Entry& e : entries) {
    if (e.name == flag) return &e;
  }
  return nullptr;
}

std::optional<std::int64_t> FlagValues::integer(std::string_view flag) const {
  const Entry* e = find(flag);
  if (e == nullptr || e->ints.empty()) return std::nullopt;
  return e->ints.front();
}

std::optional<double> FlagValues::number(std::string_view flag) const {
  const Entry* e = find(flag);
  if (e == nullptr) return std::nullopt;
  return e->number;
}

bool FlagValues::boolean(std::string_view flag) const {
  const Entry* e = find(flag);
  return e != nullptr && e->flag;
}

std::optional<std::string> FlagValues::string(std::string_view flag) const {
  const Entry* e = find(flag);
  if (e == nullptr) return std::nullopt;
  return e->text;
}

std::optional<std::vector<std::int64_t>> FlagValues::int_list(std::string_view flag) const {
  const Entry* e = find(flag);
  if (e == nullptr) return std::nullopt;
  return e->ints;
}

std::optional<SourceLoc> FlagValues::location(std::string_view flag) const {
  const Entry* e = find(flag);
  if (e == nullptr) return std::nullopt;
  return e->loc;
}

namespace {

// Integer flags count GPUs, requests, tokens or batch sizes: held to 32 bits, their products
// with per-token byte sizes stay far inside 64 bits. Byte counts are held to 2^48 (256 TiB),
// so that sums and small multiples of them do too. Larger values were signed overflows
// (undefined behaviour) in the engine models.
std::int64_t flag_int_limit(FlagType type) {
  return type == FlagType::kByteCount ? std::int64_t{1} << 48 : 2147483647;
}

bool fits_flag_int(FlagType type, std::int64_t v) {
  return v >= -flag_int_limit(type) && v <= flag_int_limit(type);
}

std::string flag_int_range(FlagType type) {
  return "from " + std::to_string(-flag_int_limit(type)) + " to " +
         std::to_string(flag_int_limit(type));
}

std::optional<std::int64_t> to_int(std::string_view s) {
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// vllm engine/arg_utils.py human_readable_int: "25.6k" = 25,600, "32K" = 32,768; decimals
// only with the decimal suffixes k m g t.
std::optional<std::int64_t> human_int(std::string_view s) {
  if (std::optional<std::int64_t> plain = to_int(s)) return plain;
  if (s.size() < 2) return std::nullopt;
  const char suffix = s.back();
  const std::string_view number = s.substr(0, s.size() - 1);
  const std::string_view decimal = "kmgt";
  const std::string_view binary = "KMGT";
  if (const size_t d = decimal.find(suffix); d != std::string_view::npos) {
    double v = 0;
    auto [ptr, ec] =
        std::from_chars(number.data(), number.data() + number.size(), v, std::chars_format::fixed);
    if (ec != std::errc() || ptr != number.data() + number.size() || v < 0 || v > 1e15) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(v * std::pow(1000.0, static_cast<double>(d + 1)));
  }
  if (const size_t b = binary.find(suffix); b != std::string_view::npos) {
    const std::optional<std::int64_t> n = to_int(number);
    if (!n || *n < 0 || *n > (std::int64_t{1} << 20)) return std::nullopt;
    return *n << (10 * (b + 1));
  }
  return std::nullopt;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

const FlagSpec* find_flag(std::string_view flag, std::span<const FlagSpec> table) {
  for (const FlagSpec& f : table) {
    if (f.name == flag) return &f;
    for (std::string_view a : f.aliases) {
      if (a == flag) return &f;
    }
  }
  return nullptr;
}

Result<const FlagSpec*> match_flag(std::string_view flag, std::span<const FlagSpec> table,
                                   std::string_view engine_name) {
  if (const FlagSpec* exact = find_flag(flag, table)) return exact;
  // argparse's _parse_optional: a prefix of long options only, matched against every
  // option string of every action.
  std::vector<const FlagSpec*> matches;
  std::string candidates;
  if (flag.starts_with("--") && flag.size() > 2) {
    for (const FlagSpec& f : table) {
      bool hit = f.name.starts_with(flag);
      std::string_view spelled = f.name;
      for (std::string_view a : f.aliases) {
        if (!hit && a.starts_with("--") && a.starts_with(flag)) {
          hit = true;
          spelled = a;
        }
      }
      if (hit) {
        matches.push_back(&f);
        candidates += (candidates.empty() ? "" : ", ") + std::string(spelled);
      }
    }
  }
  if (matches.size() == 1) return matches.front();
  if (matches.size() > 1) {
    return invalid_input("ambiguous option: " + std::string(flag) + " could match " + candidates);
  }
  std::vector<std::string> names;
  for (const FlagSpec& f : table) {
    names.emplace_back(f.name);
    for (std::string_view a : f.aliases) names.emplace_back(a);
  }
  // "-dp" for "--dp-size": argparse does not read a single dash as a long prefix, but the
  // long flag it stands for is the likelier suggestion than one a letter or two away.
  if (!flag.starts_with("--") && flag.size() > 2) {
    const std::string as_long = "-" + std::string(flag);
    std::vector<std::string> longer;
    for (const std::string& n : names) {
      if (n.starts_with(as_long)) longer.push_back(n);
    }
    if (longer.size() == 1) {
      return not_found("unknown " + std::string(engine_name) + " flag '" + std::string(flag) +
                       "'; did you mean '" + longer.front() + "'?");
    }
  }
  return not_found("unknown " + std::string(engine_name) + " flag '" + std::string(flag) + "'" +
                   did_you_mean(flag, names));
}

std::vector<EngineArg> args_naming(std::span<const EngineArg> args, std::span<const FlagSpec> table,
                                   std::span<const std::string_view> names) {
  std::vector<EngineArg> out;
  for (const EngineArg& a : args) {
    Result<const FlagSpec*> spec = match_flag(a.flag, table, "");
    if (spec.ok() && std::find(names.begin(), names.end(), (*spec)->name) != names.end()) {
      out.push_back(a);
    }
  }
  return out;
}

FlagValues read_flags(std::span<const EngineArg> args, std::span<const FlagSpec> table,
                      std::string_view engine_name, Diagnostics& diags) {
  FlagValues out;
  for (const EngineArg& written : args) {
    EngineArg arg = written;
    Result<const FlagSpec*> matched = match_flag(arg.flag, table, engine_name);
    // --no-X of a boolean X is X false (argparse.BooleanOptionalAction).
    if (!matched.ok() && arg.flag.starts_with("--no-")) {
      Result<const FlagSpec*> positive = match_flag("--" + arg.flag.substr(5), table, engine_name);
      if (positive.ok() && (*positive)->type == FlagType::kBool && arg.values.size() <= 1 &&
          (arg.values.empty() || arg.values[0].empty())) {
        matched = positive;
        arg.values = {"false"};
      }
    }
    if (!matched.ok()) {
      diags.error(arg.flag_loc, matched.status().message());
      continue;
    }
    const FlagSpec* spec = *matched;
    // A boolean written bare, as on a command line, is true.
    if (spec->type == FlagType::kBool && !arg.is_list &&
        (arg.values.empty() || (arg.values.size() == 1 && arg.values[0].empty()))) {
      arg.values = {"true"};
    }
    // A boolean false, a choice of "auto", or the flag's own "off" value leaves the engine
    // as gpumem models it.
    const bool set =
        arg.values.size() != 1 || (arg.values[0] != "false" && arg.values[0] != "auto" &&
                                   (spec->off_value.empty() || arg.values[0] != spec->off_value));
    if (!spec->not_modelled.empty() && set) {
      diags.error(arg.flag_loc,
                  "'" + arg.flag + "' is not modelled: " + std::string(spec->not_modelled));
      continue;
    }
    bool duplicate = false;
    for (const FlagValues::Entry& e : out.entries) duplicate = duplicate || e.name == spec->name;
    if (duplicate) {
      diags.error(arg.flag_loc, "flag '" + arg.flag + "' repeats '" + std::string(spec->name) +
                                    "' given earlier");
      continue;
    }
    FlagValues::Entry entry{spec->name, spec->type, {}, 0, false, {}, arg.value_loc};
    const std::string what = "'" + arg.flag + "'";
    auto bad = [&](const std::string& expected) {
      std::string got =
          arg.is_list ? "a list" : "'" + (arg.values.empty() ? "" : arg.values[0]) + "'";
      diags.error(arg.value_loc, what + " must be " + expected + ", got " + got);
    };
    if (spec->type == FlagType::kList) {
      for (const std::string& v : arg.values) entry.text += (entry.text.empty() ? "" : " ") + v;
    } else if (spec->type == FlagType::kIntList) {
      bool ok = true;
      for (const std::string& v : arg.values) {
        std::optional<std::int64_t> i = to_int(v);
        if (!i || !fits_flag_int(spec->type, *i)) {
          diags.error(arg.value_loc, what + " must be a list of integers" +
                                         (i ? " " + flag_int_range(spec->type) : std::string()) +
                                         ", got '" + v + "'");
          ok = false;
          break;
        }
        entry.ints.push_back(*i);
      }
      if (!ok) continue;
    } else if (arg.is_list || arg.values.size() != 1) {
      bad(spec->type == FlagType::kInt || spec->type == FlagType::kByteCount ? "an integer"
          : spec->type == FlagType::kFloat                                   ? "a number"
          : spec->type == FlagType::kBool                                    ? "true or false"
                                                                             : "a string");
      continue;
    } else {
      const std::string& v = arg.values[0];
      switch (spec->type) {
        case FlagType::kInt:
        case FlagType::kByteCount:
          if (spec->auto_is_minus_one && equals_ignoring_case(v, "auto")) {
            entry.ints.push_back(-1);
          } else if (std::optional<std::int64_t> i =
                         spec->human_readable ? human_int(v) : to_int(v);
                     i && fits_flag_int(spec->type, *i)) {
            entry.ints.push_back(*i);
          } else {
            bad(i ? "an integer " + flag_int_range(spec->type) : "an integer");
            continue;
          }
          break;
        case FlagType::kFloat:
          if (std::optional<double> d = to_double(v)) {
            entry.number = *d;
          } else {
            bad("a number");
            continue;
          }
          break;
        case FlagType::kBool:
          if (v != "true" && v != "false") {
            bad("true or false");
            continue;
          }
          entry.flag = v == "true";
          break;
        case FlagType::kString: {
          if (!spec->choices.empty()) {
            bool allowed = false;
            for (std::string_view c : spec->choices) allowed = allowed || c == v;
            if (!allowed) {
              std::vector<std::string> choices(spec->choices.begin(), spec->choices.end());
              std::string list;
              for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
              diags.error(arg.value_loc, what + " must be one of " + list + "; got '" + v + "'" +
                                             did_you_mean(v, choices));
              continue;
            }
          }
          entry.text = v;
          break;
        }
        case FlagType::kIntList:
        case FlagType::kList:
          break;
      }
    }
    out.entries.push_back(std::move(entry));
  }
  return out;
}

FlagSpec refused_flag(std::string_view name, FlagType type, std::string_view why,
                      std::string_view default_value, std::vector<std::string_view> aliases) {
  return {name, std::move(aliases), type, true, {}, false, why, default_value};
}

std::vector<FlagSpec> joined_tables(std::initializer_list<std::span<const FlagSpec>> tables) {
  std::vector<FlagSpec> all;
  for (std::span<const FlagSpec> t : tables) all.insert(all.end(), t.begin(), t.end());
  return all;
}

int positive_flag(const FlagValues& v, std::string_view flag, int fallback, Diagnostics& diags) {
  // Above any real deployment; a product of three such counts still fits in 64 bits.
  constexpr std::int64_t kMaxCount = 4096;
  std::optional<std::int64_t> n = v.integer(flag);
  if (!n) return fallback;
  if (*n < 1 || *n > kMaxCount) {
    diags.error(*v.location(flag),
                std::string(flag) +
                    (*n < 1 ? " must be a positive integer, got "
                            : " must be at most " + std::to_string(kMaxCount) + ", got ") +
                    std::to_string(*n));
    return fallback;
  }
  return static_cast<int>(*n);
}

std::optional<std::int64_t> positive_flag_opt(const FlagValues& v, std::string_view flag,
                                              Diagnostics& diags) {
  std::optional<std::int64_t> n = v.integer(flag);
  if (n && *n < 1) {
    diags.error(*v.location(flag),
                std::string(flag) + " must be a positive integer, got " + std::to_string(*n));
    return std::nullopt;
  }
  return n;
}

}  // namespace gpumem
