// Dating a vLLM log by the source lines its logger prints. vLLM's logger puts "[file.py:line]"
// before every message, and a statement moves to other lines as its file is edited between
// releases. Public logs that print their version show where a statement stood in that release
// (tests/data/vllm-source-lines/seen.tsv, each row with the thread it comes from and its version
// line). A log that prints no version but carries such a tag is dated by the releases around
// it: after the nearest release below the ones seen with the tag that printed the statement
// elsewhere, and before the nearest release above them that did. The bounds are sound whatever
// the releases no public log showed did; where the tag is the only one seen, it bounds nothing.
#ifndef GPUMEM_EXPLAIN_VLLM_SOURCE_LINES_H_
#define GPUMEM_EXPLAIN_VLLM_SOURCE_LINES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpumem {

// One sighting: `statement` (the message's first words) logged at `tag` ("gpu_worker.py:298")
// by a log that printed `version`.
struct SourceLineSeen {
  std::string_view statement;
  std::string_view tag;
  std::string_view version;
};

std::span<const SourceLineSeen> vllm_source_lines_seen();

// The releases a message logged at `tag` dates its log to: `from` (inclusive) and `before`
// (exclusive), either empty where nothing bounds it; nullopt for a tag no public log showed
// with that statement, or one that bounds nothing.
struct SourceLineBounds {
  std::string from;
  std::string before;
  // "'Available KV cache memory' at gpu_worker.py:298, where vLLM 0.10.2, 0.11.0 logs it"
  std::string why;
  std::string newest_seen;  // the newest release seen logging it there
};
std::optional<SourceLineBounds> vllm_source_line_bounds(std::string_view tag,
                                                        std::string_view message);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_VLLM_SOURCE_LINES_H_
