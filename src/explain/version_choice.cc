#include "explain/version_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "engine/release_spelling.h"
#include "engine/sglang/version.h"
#include "engine/vllm/version.h"

namespace gpumem {
namespace {

using Key = std::tuple<int, int, int, int>;

std::optional<Key> parse(LogEngine engine, const std::string& text) {
  if (engine == LogEngine::kSglang) {
    const std::optional<sglang::Version> v = sglang::parse_version(text);
    if (!v) return std::nullopt;
    return Key{v->major, v->minor, v->patch, v->post};
  }
  const std::optional<vllm::Version> v = vllm::parse_version(text);
  if (!v) return std::nullopt;
  return Key{v->major, v->minor, v->patch, v->hotfix};
}

// The releases at which gpumem's rules for the engine change and the newest one modelled.
std::vector<std::string> rule_releases(LogEngine engine) {
  if (engine == LogEngine::kSglang) {
    return {std::begin(sglang::kRuleChanges), std::end(sglang::kRuleChanges)};
  }
  return {std::begin(vllm::kRuleChanges), std::end(vllm::kRuleChanges)};
}

// The first release past the modelled range.
Key first_unmodelled(LogEngine engine) {
  if (engine == LogEngine::kSglang) {
    const sglang::Version n = sglang::kNewestModelled;
    return Key{n.major, n.minor, n.patch + 1, 0};
  }
  const vllm::Version f = vllm::kFirstUnmodelled;
  return Key{f.major, f.minor, f.patch, f.hotfix};
}

std::string key_text(const Key& k) {
  return std::to_string(std::get<0>(k)) + "." + std::to_string(std::get<1>(k)) + "." +
         std::to_string(std::get<2>(k));
}

// A printed version as PEP 440 writes pre-releases and builds: "0.15.0rc1" (a release
// candidate: the release's code), "0.20.1.dev1+g1a2b3c4" or "0.19.1rc1.dev45+g..." (a
// development build, which setuptools_scm numbers after the next release: it comes before it).
struct PrintedRelease {
  Key key;
  bool candidate = false;
  bool development = false;
};

std::optional<PrintedRelease> printed_release(LogEngine engine, std::string text) {
  PrintedRelease p;
  text = text.substr(0, text.find('+'));
  if (const size_t dev = text.find(".dev"); dev != std::string::npos) {
    p.development = true;
    text.resize(dev);
  }
  if (const size_t rc = text.find("rc");
      rc != std::string::npos && rc > 0 && std::isdigit(static_cast<unsigned char>(text[rc - 1]))) {
    p.candidate = true;
    text.resize(rc);
  }
  const std::optional<Key> k = parse(engine, text);
  if (!k) return std::nullopt;
  p.key = *k;
  return p;
}

struct Release {
  const char* version;
  const char* date;  // YYYY-MM-DD: published on (or, first seen by, where the note says so)
};

// staging/releases/sglang.md §1: tag and PR dates; the v0.5.5–v0.5.8 dates are not confirmed
// and are left out (a log between v0.5.4 and v0.5.9 is bounded by v0.5.9). v0.4.7 carries
// PR #7054, merged 2025-06-10: it cannot have been published before that day.
constexpr Release kSglangReleases[] = {
    {"0.4.1", "2024-12-25"},  {"0.4.6", "2025-04-27"},  {"0.4.7", "2025-06-10"},
    {"0.4.8", "2025-06-26"},  {"0.5.0", "2025-08-08"},  {"0.5.1", "2025-08-23"},
    {"0.5.2", "2025-09-05"},  {"0.5.4", "2025-10-24"},  {"0.5.9", "2026-02-23"},
    {"0.5.10", "2026-04-06"}, {"0.5.11", "2026-05-06"}, {"0.5.12", "2026-05-18"},
    {"0.5.13", "2026-06-13"}, {"0.5.14", "2026-06-24"}, {"0.5.16", "2026-07-26"},
    {"0.5.17", "2026-08-08"}, {"0.5.18", "2026-08-20"}, {"0.5.19", "2026-09-06"},
    {"0.5.20", "2026-09-18"}, {"0.5.21", "2026-10-01"},
};

// staging/releases/vllm.md §1 (first sightings where no release date was found). A date must
// not be later than the publication: a log of the release dated before it would be bounded
// below its own release. v0.13.0: "released 2025-12-19" (huggingface/trl PR #6154); v0.14.0:
// not yet published on 2026-01-09 (QwenLM/Qwen3-VL-Embedding issue #7, only v0.14.0rc0 then).
constexpr Release kVllmReleases[] = {
    {"0.7.2", "2025-02-07"},  {"0.8.3", "2025-04-07"},  {"0.9.2", "2025-07-17"},
    {"0.10.1", "2025-08-18"}, {"0.11.0", "2025-10-07"}, {"0.13.0", "2025-12-19"},
    {"0.14.0", "2026-01-10"}, {"0.15.0", "2026-01-29"}, {"0.17.1", "2026-03-12"},
    {"0.18.1", "2026-03-30"}, {"0.19.0", "2026-04-09"}, {"0.20.0", "2026-04-29"},
    {"0.21.0", "2026-05-15"}, {"0.22.0", "2026-06-10"}, {"0.23.0", "2026-06-14"},
    {"0.24.0", "2026-07-01"}, {"0.25.0", "2026-07-12"}, {"0.26.0", "2026-07-26"},
    {"0.27.1", "2026-08-13"}, {"0.28.0", "2026-08-20"}, {"0.29.0", "2026-09-10"},
};

std::span<const Release> releases_of(LogEngine engine) {
  if (engine == LogEngine::kSglang) return kSglangReleases;
  return kVllmReleases;
}

// The day the release tables below were last brought up to date.
constexpr const char* kReleaseTablesAsOf = "2026-12-07";

std::optional<std::chrono::year_month_day> parse_day(std::string_view text) {
  int y = 0;
  unsigned m = 0;
  unsigned d = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' ||
      std::from_chars(p, p + 4, y).ptr != p + 4 || std::from_chars(p + 5, p + 7, m).ptr != p + 7 ||
      std::from_chars(p + 8, end, d).ptr != end) {
    return std::nullopt;
  }
  const std::chrono::year_month_day day{std::chrono::year(y), std::chrono::month(m),
                                        std::chrono::day(d)};
  return day.ok() ? std::optional(day) : std::nullopt;
}

std::string day_text(const std::chrono::year_month_day& d) {
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(d.year()),
                     static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
}

std::string clue_text(const VersionClue& c) {
  return c.why + " (line " + std::to_string(c.line) + ")";
}

}  // namespace

std::optional<VersionClue> date_clue(LogEngine engine, std::string_view date, int line) {
  for (const Release& r : releases_of(engine)) {
    if (std::string_view(r.date) > date) {
      return VersionClue{"",
                         r.version,
                         "dated " + std::string(date) + ", before v" + r.version +
                             " was published (" + r.date + ")",
                         line,
                         true,
                         ""};
    }
  }
  return std::nullopt;
}

std::optional<VersionClue> yearless_date_clue(LogEngine engine, std::string_view month_day,
                                              int line, std::string_view today) {
  const std::optional<std::chrono::year_month_day> now = parse_day(today);
  unsigned month = 0;
  unsigned day = 0;
  if (!now || month_day.size() != 5 || month_day[2] != '-' ||
      std::from_chars(month_day.data(), month_day.data() + 2, month).ptr != month_day.data() + 2 ||
      std::from_chars(month_day.data() + 3, month_day.data() + 5, day).ptr !=
          month_day.data() + 5) {
    return std::nullopt;
  }
  // The latest year in which the day exists (02-29 needs a leap year) and is not after today.
  for (int back = 0; back < 8; ++back) {
    const std::chrono::year_month_day d{now->year() - std::chrono::years(back),
                                        std::chrono::month(month), std::chrono::day(day)};
    if (!d.ok() || d > *now) continue;
    const std::string latest = day_text(d);
    std::optional<VersionClue> c = date_clue(engine, latest, line);
    if (c) {
      c->why = "dated " + std::string(month_day) + " with no year (" + latest +
               " at the latest, as of " + std::string(today) + "), before v" + c->before +
               c->why.substr(c->why.find(" was published"));
    }
    return c;
  }
  return std::nullopt;
}

std::string dating_today() {
  std::string today;
  if (const char* given = std::getenv("GPUMEM_TODAY"); given != nullptr && parse_day(given)) {
    today = given;
  } else {
    today = day_text(std::chrono::year_month_day{
        std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())});
  }
  return std::max(today, std::string(kReleaseTablesAsOf));
}

namespace {

// The release `p` (from `text`) names, as `how` (`printed 0.5.9 (line 3)`, `given with
// --engine-version 0.5.9`) states it; `plain` states a release gpumem models as it is.
VersionChoice named_release(const LogRun& run, LogEngine engine, const PrintedRelease& p,
                            const std::string& text, const std::string& how,
                            const std::string& plain) {
  const std::vector<std::string> releases = rule_releases(engine);
  const std::string& oldest = releases.front();
  const std::string& newest = releases.back();
  if (p.key < *parse(engine, oldest)) {
    return {oldest, how + ", older than gpumem models: replayed with the oldest modelled release",
            true, false};
  }
  if (p.key >= first_unmodelled(engine)) {
    return {newest, how + ", newer than gpumem models: replayed with the newest modelled release",
            false, true};
  }
  if (p.development) {
    // Between the releases before it and the one it names: the rules of the last
    // release at which they changed below it ...
    std::string at = oldest;
    for (const std::string& r : releases) {
      if (*parse(engine, r) < p.key) at = r;
    }
    // ... unless its wording is a later release's: a build of the development branch
    // carries what that branch already had (vLLM's 0.20.2rc1.dev builds print 0.21.0's
    // CUDA-graph estimate), so the newest release its wording shows gives the rules.
    std::optional<Key> worded;
    std::string worded_why;
    for (const VersionClue& c : run.version_clues) {
      if (c.from.empty() || c.from_date) continue;
      const Key k = *parse(engine, c.from);
      if (!worded || k > *worded) {
        worded = k;
        worded_why = clue_text(c);
      }
    }
    if (worded && *worded > *parse(engine, at) && *worded < first_unmodelled(engine)) {
      std::string by_wording = at;
      for (const std::string& r : releases) {
        if (*parse(engine, r) <= *worded) by_wording = r;
      }
      return {by_wording,
              how + ", a development build whose wording is v" + key_text(*worded) + "'s (" +
                  worded_why + "): the rules of v" + by_wording,
              false, false};
    }
    return {at,
            how + ", a development build before v" + key_text(p.key) + ": the rules of v" + at +
                ", the last release below it at which they changed",
            false, false};
  }
  if (p.candidate) {
    return {key_text(p.key), how + ", a release candidate of v" + key_text(p.key), false, false};
  }
  return {text, plain, false, false};
}

}  // namespace

std::optional<VersionChoice> given_version(const LogRun& run, LogEngine engine,
                                           const std::string& version) {
  const std::optional<PrintedRelease> p = printed_release(engine, version);
  if (!p) return std::nullopt;
  const std::string how = "given with --engine-version " + version;
  return named_release(run, engine, *p, version, how, how);
}

std::string given_release_error(LogEngine engine, const std::string& version) {
  if (std::string spelling = release_spelling_error(version); !spelling.empty()) return spelling;
  if (printed_release(engine, version)) return {};
  return fmt::format("'{}' is not a release number {} writes (as {})", version,
                     log_engine_title(engine), rule_releases(engine).back());
}

VersionChoice choose_version(const LogRun& run, LogEngine engine) {
  const std::vector<std::string> releases = rule_releases(engine);
  const std::string& oldest = releases.front();
  const std::string& newest = releases.back();
  const Key oldest_key = *parse(engine, oldest);
  if (run.version) {
    if (const std::optional<PrintedRelease> p = printed_release(engine, *run.version)) {
      const std::string where = " (line " + std::to_string(run.version_line) + ")";
      const std::string how =
          (run.version_from_image_tag ? "named by the image tag, " : "printed ") + *run.version +
          where;
      return named_release(
          run, engine, *p, *run.version, how,
          (run.version_from_image_tag ? "named by the image tag" : "printed") + where);
    }
  }
  std::optional<Key> lo;
  std::optional<Key> hi;
  std::optional<Key> hi_by_wording;
  std::string why;
  for (const VersionClue& c : run.version_clues) {
    if (!c.from.empty()) {
      const Key k = *parse(engine, c.from);
      if (!lo || k > *lo) lo = k;
    }
    if (!c.before.empty()) {
      const Key k = *parse(engine, c.before);
      if (!hi || k < *hi) hi = k;
      if (!c.from_date && (!hi_by_wording || k < *hi_by_wording)) hi_by_wording = k;
    }
    why += (why.empty() ? "" : ", ") + clue_text(c);
  }
  if (!lo && !hi) return {newest, "not printed: the newest release gpumem models", false, false};
  if (lo && hi && *lo >= *hi && (!hi_by_wording || *lo < *hi_by_wording)) {
    // Only the date bounds it below what its wording shows: a build from the development
    // branch before that release was published (users run nightly wheels and images), which
    // has the release's wording and so its rules.
    std::string at = oldest;
    for (const std::string& r : releases) {
      if (*parse(engine, r) <= *lo) at = r;
    }
    return {at,
            "not printed; the log dates it: " + why + "; a development build before v" +
                key_text(*lo) + " was published, with its wording",
            false, *lo >= first_unmodelled(engine)};
  }
  if (lo && hi && *lo >= *hi) {
    return {newest,
            "not printed; the log's wording is contradictory (" + why +
                "): the newest release gpumem models",
            false, false};
  }
  if (lo && *lo >= first_unmodelled(engine)) {
    return {newest,
            "not printed; the log dates it at " + key_text(*lo) + " or later (" + why +
                "), newer than gpumem models: replayed with the newest modelled release",
            false, true};
  }
  if (hi && *hi <= oldest_key) {
    return {oldest,
            "not printed; the log dates it before " + key_text(*hi) + " (" + why +
                "), older than every release gpumem models: replayed with the oldest "
                "modelled release",
            true, false};
  }
  // Within the wording's bounds, a release whose public logs print the log's source lines
  // where it does is likelier than the newest release the bounds allow: its rules. A date
  // before that release was published makes the log a development build of it (a nightly
  // wheel, a release candidate), which already has its source lines.
  std::optional<Key> seen;
  for (const VersionClue& c : run.version_clues) {
    if (c.seen.empty()) continue;
    const Key k = *parse(engine, c.seen);
    if ((lo && k < *lo) || (hi_by_wording && k >= *hi_by_wording)) continue;
    if (!seen || k > *seen) seen = k;
  }
  if (seen) {
    std::string at = oldest;
    for (const std::string& r : releases) {
      if (*parse(engine, r) <= *seen) at = r;
    }
    const bool before_published = hi && *seen >= *hi;
    return {at,
            "not printed; the log dates it: " + why + "; v" + key_text(*seen) +
                "'s public logs print its source lines there" +
                (before_published ? ", so a development build of it before it was published" : "") +
                ": the rules of v" + at,
            *seen < oldest_key, false};
  }
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    const Key k = *parse(engine, *it);
    if ((!lo || k >= *lo) && (!hi || k < *hi)) {
      return {*it, "not printed; the log dates it: " + why, false, false};
    }
  }
  // Between two rule releases with none inside: the rules of the release below the range.
  std::string below = oldest;
  for (const std::string& r : releases) {
    if (lo && *parse(engine, r) <= *lo) below = r;
  }
  return {below, "not printed; the log dates it: " + why, false, false};
}

}  // namespace gpumem
