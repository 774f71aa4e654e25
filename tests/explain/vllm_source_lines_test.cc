// Dating a vLLM log by its "[file.py:line]" tags (explain/vllm_source_lines.h): the table is the
// public logs' sightings (tests/data/vllm-source-lines/seen.tsv), and a tag bounds its log by the
// releases seen printing the statement elsewhere.
#include "explain/vllm_source_lines.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "explain/log_reader.h"
#include "explain/version_choice.h"

namespace gpumem {
namespace {

using Row = std::tuple<std::string, std::string, std::string>;

// The TSV's rows for the statements the table keeps, normalized as its comment says: release
// candidates and post releases as their release, development and vendor builds (noted in
// parentheses) left out.
std::set<Row> rows_of_the_tsv(const std::set<std::string>& statements) {
  std::ifstream in(GPUMEM_SOURCE_DIR "/tests/data/vllm-source-lines/seen.tsv");
  std::set<Row> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string field; std::getline(s, field, '\t');) f.push_back(field);
    if (f.size() < 4 || !statements.contains(f[2])) continue;
    std::string v = f[3];
    if (v.find(" (") != std::string::npos || v.find(".dev") != std::string::npos) continue;
    v = v.substr(0, v.find('+'));
    v = std::regex_replace(v, std::regex(R"(rc\d+$|\.post\d+$)"), "");
    rows.insert({f[2], f[0] + ":" + f[1], v});
  }
  return rows;
}

TEST(VllmSourceLines, TheTableIsTheSightingsOfThePublicLogs) {
  std::set<Row> table;
  std::set<std::string> statements;
  for (const SourceLineSeen& s : vllm_source_lines_seen()) {
    EXPECT_TRUE(
        table.insert({std::string(s.statement), std::string(s.tag), std::string(s.version)}).second)
        << s.statement << " " << s.tag << " " << s.version;
    statements.insert(std::string(s.statement));
  }
  EXPECT_EQ(statements.size(), 16u);
  EXPECT_EQ(table.size(), 373u);
  EXPECT_EQ(table, rows_of_the_tsv(statements));
}

TEST(VllmSourceLines, ATagIsBoundedByTheReleasesThatLoggedItElsewhere) {
  // gpu_worker.py:298 in 0.10.2's and 0.11.0's logs; 0.10.1.1 logged it at 276, 0.13.0 at 375.
  const std::optional<SourceLineBounds> b =
      vllm_source_line_bounds("gpu_worker.py:298", "Available KV cache memory: 13.69 GiB");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->from, "0.10.2");
  EXPECT_EQ(b->before, "0.13.0");
  EXPECT_EQ(b->newest_seen, "0.11.0");
  EXPECT_EQ(b->why,
            "'Available KV cache memory' at gpu_worker.py:298, where vLLM 0.10.2, 0.11.0 logs it");
  // The oldest sighting of a statement bounds its log from above only.
  const std::optional<SourceLineBounds> oldest =
      vllm_source_line_bounds("gpu_worker.py:227", "Available KV cache memory: 1.00 GiB");
  ASSERT_TRUE(oldest);
  EXPECT_EQ(oldest->from, "");
  EXPECT_EQ(oldest->before, "0.9.2");
  // A tag no public log showed with the statement, or another statement at a known tag.
  EXPECT_FALSE(vllm_source_line_bounds("gpu_worker.py:299", "Available KV cache memory: 1 GiB"));
  EXPECT_FALSE(vllm_source_line_bounds("gpu_worker.py:298", "Memory profiling takes 3.2 s"));
}

TEST(VllmSourceLines, ALogThatPrintsNoVersionIsDatedByItsTags) {
  // vllm-project/vllm#26612 (tests/data/engine-logs/vllm-a800-x1-qwen3-vl-30b-a3b-engine-fail.log):
  // dated 10-11 without a year; its KV line at gpu_worker.py:298.
  const Result<StartupLog> log = read_startup_log(
      "(Worker pid=1939690) INFO 10-11 10:42:14 [gpu_worker.py:298] Available KV cache memory: "
      "13.69 GiB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 1u);
  const VersionChoice v = choose_version(log->runs.front(), LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.11.0");
  EXPECT_EQ(v.note,
            "not printed; the log dates it: 'Available KV cache memory' at INFO (line 1), "
            "'Available KV cache memory' at gpu_worker.py:298, where vLLM 0.10.2, 0.11.0 logs it "
            "(line 1); v0.11.0's public logs print its source lines there: the rules of v0.11.0");
  // A tag only 0.26.0's public logs print (kv_cache_utils.py:2177; 0.25.x and 0.27.1 elsewhere)
  // dates a log to 0.26.0.
  const Result<StartupLog> newer = read_startup_log(
      "(EngineCore pid=7) INFO 07-29 10:00:00 [kv_cache_utils.py:2177] GPU KV cache size: "
      "1,000,000 tokens\n",
      std::nullopt);
  ASSERT_TRUE(newer.ok());
  ASSERT_EQ(newer->runs.size(), 1u);
  const VersionChoice n = choose_version(newer->runs.front(), LogEngine::kVllm);
  EXPECT_EQ(n.version, "0.26.0");
  EXPECT_FALSE(n.newer_than_modelled);
  EXPECT_NE(n.note.find("'GPU KV cache size' at kv_cache_utils.py:2177, where vLLM 0.26.0 logs it"),
            std::string::npos)
      << n.note;
  // A tag without its line number dates nothing: the newest release the wording allows.
  const Result<StartupLog> untagged = read_startup_log(
      "INFO 10-11 10:42:14 [gpu_worker.py] Available KV cache memory: 13.69 GiB\n", std::nullopt);
  ASSERT_TRUE(untagged.ok());
  ASSERT_EQ(untagged->runs.size(), 1u);
  EXPECT_EQ(choose_version(untagged->runs.front(), LogEngine::kVllm).version, "0.30.0");
}

}  // namespace
}  // namespace gpumem
