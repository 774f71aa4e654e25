#include "explain/version_choice.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "engine/sglang/version.h"
#include "engine/vllm/version.h"

namespace gpumem {
namespace {

using Key = std::tuple<int, int, int, int>;

std::optional<Key> parse(LogEngine engine, const std::string& text) {
  if (engine == LogEngine::kSglang) {
    const std::optional<sglang::Version> v = sglang::parse_version(text);
    if (!v) return std::nullopt;
    return Key{v->major, v->minor, v->patch, 0};
  }
  const std::optional<vllm::Version> v = vllm::parse_version(text);
  if (!v) return std::nullopt;
  return Key{v->major, v->minor, v->patch, v->hotfix};
}

// The releases at which gpumem's rules for the engine change (engine/sglang/version.cc,
// engine/vllm/version.cc) and the newest one modelled: a release between two of them has
// the rules of the earlier.
std::vector<std::string> rule_releases(LogEngine engine) {
  if (engine == LogEngine::kSglang) return {"0.5.9", "0.5.10", "0.5.14", "0.5.18"};
  return {"0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.14.0", "0.17.0", "0.21.0"};
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

std::string clue_text(const VersionClue& c) {
  return c.why + " (line " + std::to_string(c.line) + ")";
}

}  // namespace

VersionChoice choose_version(const LogRun& run, LogEngine engine) {
  const std::vector<std::string> releases = rule_releases(engine);
  const std::string& oldest = releases.front();
  const std::string& newest = releases.back();
  const Key oldest_key = *parse(engine, oldest);
  if (run.version) {
    const std::string where = " (line " + std::to_string(run.version_line) + ")";
    if (const std::optional<Key> v = parse(engine, *run.version)) {
      if (*v < oldest_key) {
        return {oldest,
                "printed " + *run.version + where +
                    ", older than gpumem models: replayed with the oldest modelled release",
                true};
      }
      if (*v >= first_unmodelled(engine)) {
        return {newest,
                "printed " + *run.version + where +
                    ", newer than gpumem models: replayed with the newest modelled release"};
      }
      return {*run.version, "printed" + where};
    }
  }
  std::optional<Key> lo;
  std::optional<Key> hi;
  std::string why;
  for (const VersionClue& c : run.version_clues) {
    if (!c.from.empty()) {
      const Key k = *parse(engine, c.from);
      if (!lo || k > *lo) lo = k;
    }
    if (!c.before.empty()) {
      const Key k = *parse(engine, c.before);
      if (!hi || k < *hi) hi = k;
    }
    why += (why.empty() ? "" : ", ") + clue_text(c);
  }
  if (!lo && !hi) return {newest, "not printed: the newest release gpumem models"};
  for (auto it = releases.rbegin(); it != releases.rend(); ++it) {
    const Key k = *parse(engine, *it);
    if ((!lo || k >= *lo) && (!hi || k < *hi)) {
      return {*it, "not printed; the log's wording dates it: " + why};
    }
  }
  if (hi && *hi <= oldest_key) {
    return {oldest,
            "not printed; the log's wording is older than every release gpumem models (" + why +
                "): replayed with the oldest modelled release",
            true};
  }
  return {newest, "not printed; the log's wording is contradictory (" + why +
                      "): the newest release gpumem models"};
}

}  // namespace gpumem
