// Which engine release a replay of a logged start-up uses: the one the log prints, else the
// newest release gpumem models that agrees with what dates the log — the form of its lines
// (a line's wording belongs to a range of releases: vLLM V0's "Loading model weights took",
// "Model loading took ... GiB memory" from v0.11.0, SGLang's "Load weight end. elapsed=" from
// v0.5.7, ...) and the date its lines carry (a log dated before a release cannot run it).
// Each clue is named in the note, with its line.
//
// A log from a release older than every modelled one is replayed with the oldest modelled
// release, one newer than every modelled one with the newest; the choice is flagged either
// way, and the diagnosis says that a miss may be the engine's history rather than the model.
//
// Sources: the release dates and the wording of each memory line per release range are
// research/releases (staging/releases/sglang.md §1, §9; vllm.md §1, §8).
#ifndef GPUMEM_EXPLAIN_VERSION_CHOICE_H_
#define GPUMEM_EXPLAIN_VERSION_CHOICE_H_

#include <optional>
#include <string>
#include <string_view>

#include "explain/startup_log.h"

namespace gpumem {

struct VersionChoice {
  std::string version;  // "0.5.9", "0.10.2"
  std::string note;     // how it was chosen, with the lines that say so
  bool older_than_modelled = false;
  bool newer_than_modelled = false;
};

VersionChoice choose_version(const LogRun& run, LogEngine engine);

// The release the user names for a log (--engine-version: a PR's branch, a build the log does
// not date), judged against the modelled releases as a printed one is; nullopt when `version`
// is not a release number of the engine.
std::optional<VersionChoice> given_version(const LogRun& run, LogEngine engine,
                                           const std::string& version);

// Empty when `version` is spelled as a release number and is one `engine` writes ("0.4.6.post1"
// is SGLang's, never vLLM's); otherwise why not, for an error at the option or header that
// gave it.
std::string given_release_error(LogEngine engine, const std::string& version);

// The clue a log's date gives: its release is older than the first release published after
// that date ("2025-10-16": before SGLang v0.5.4, published 2025-10-24). Nothing when every
// listed release came out before the date.
std::optional<VersionClue> date_clue(LogEngine engine, std::string_view date, int line);

// The clue a date without a year gives (vLLM's "INFO 08-20 18:04:10"): a log is not from the
// future, so it is no later than the last "08-20" up to `today` (YYYY-MM-DD), and its release
// older than the first one published after that day. Nothing when `month_day` is not a date
// or no listed release came out after it.
std::optional<VersionClue> yearless_date_clue(LogEngine engine, std::string_view month_day,
                                              int line, std::string_view today);

// The day a yearless date is read against: $GPUMEM_TODAY (YYYY-MM-DD, for reports that must
// not change with the clock), else the system clock's UTC date, but never before the day the
// release tables were last brought up to date (a machine whose clock is behind must not read
// a newer log's date as the year before).
std::string dating_today();

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_VERSION_CHOICE_H_
