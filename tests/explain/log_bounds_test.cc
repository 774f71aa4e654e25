// What explain refuses to take from a log (issue 18): argument dumps nested past
// kMaxPyDepth, figures out of the bounds a scenario's values have, numbers that are not
// finite or do not fit any integer type. Each is refused with its line and column, never
// read wrapped, truncated or as another number; and values the scenario's reader refuses
// are reported at the line of the log that states them.
#include <gtest/gtest.h>

#include <string>

#include "explain/explanation.h"
#include "explain/log_reader.h"
#include "explain/log_scan.h"
#include "explain/python_literal.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

std::string refusal(const std::string& log) {
  const Result<StartupLog> r = read_startup_log(log, std::nullopt, "x.log");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

std::string nested(int depth) {
  return "cuda_graph_bs=" + std::string(static_cast<size_t>(depth), '[') +
         std::string(static_cast<size_t>(depth), ']');
}

TEST(PythonLiteral, NestingIsReadToItsLimitAndRefusedPastIt) {
  const PyItems deepest = parse_keyword_items(nested(kMaxPyDepth));
  EXPECT_FALSE(deepest.error.has_value());
  ASSERT_EQ(deepest.items.size(), 1u);
  const PyItems deeper = parse_keyword_items("tp_size=4, " + nested(kMaxPyDepth + 1));
  ASSERT_TRUE(deeper.error.has_value());
  // The 33rd '[' of the value that starts at offset 25.
  EXPECT_EQ(deeper.error->offset, 25u + 32u);
  EXPECT_EQ(deeper.error->message,
            "a Python value nested deeper than 32 lists or tuples; no engine prints one");
  ASSERT_EQ(deeper.items.size(), 1u);  // the pairs before it
  EXPECT_EQ(deeper.items[0].key, "tp_size");
}

TEST(PythonLiteral, AMillionBracketsAreRefusedNotRecursedInto) {
  const std::string line =
      "[2025-03-08 12:29:04] server_args=ServerArgs(model_path='x', " + nested(1000000) + ")";
  EXPECT_EQ(refusal(line),
            "x.log:1:108: a Python value nested deeper than 32 lists or tuples; no engine "
            "prints one");
  EXPECT_EQ(refusal("INFO 09-23 18:11:24 [utils.py:328] non-default args: {'cuda_graph_sizes': " +
                    std::string(40, '[') + std::string(40, ']') + "}"),
            "x.log:1:107: a Python value nested deeper than 32 lists or tuples; no engine "
            "prints one");
}

TEST(LogScan, ExponentsInfinitiesAndHugeIntegersAreReadWhole) {
  const std::optional<PrintedNumber> e = number_after("avail mem=1e308 GB", "avail mem=");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->value, 1e308);  // not 1
  EXPECT_EQ(e->begin, 10u);
  EXPECT_EQ(e->length, 5u);
  EXPECT_TRUE(std::isinf(number_at("inf GB")->value));
  EXPECT_TRUE(std::isnan(number_at("nan")->value));
  EXPECT_FALSE(number_at("info").has_value());  // a word, not Python's inf
  EXPECT_EQ(number_at("99999999999999999999")->value, 1e20);
  EXPECT_EQ(number_at("99999999999999999999")->decimals, -1);
}

TEST(LogBounds, AMemoryFigureAboveTwoToThe48BytesIsRefused) {
  EXPECT_EQ(refusal("[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=1e308 GB"),
            "x.log:1:56: free before weights (F) '1e308' is out of range: a memory figure is at "
            "most 262144 GiB (2^48 bytes)");
  EXPECT_EQ(refusal("(EngineCore_DP0 pid=1) INFO 09-23 18:12:33 [gpu_worker.py:298] Available KV "
                    "cache memory: -300000.00 GiB"),
            "x.log:1:91: available KV cache memory '-300000.00' is out of range: a memory "
            "figure is at most 262144 GiB (2^48 bytes)");
}

TEST(LogBounds, ACountAboveTwoToThe63IsRefusedNotWrapped) {
  EXPECT_EQ(refusal("[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: "
                    "99999999999999999999, K size: 1.42 GB, V size: 1.42 GB"),
            "x.log:1:59: KV cache tokens '99999999999999999999' is out of range: a count is at "
            "most 2147483647");
  EXPECT_EQ(refusal("[2025-03-08 12:29:35] max_total_num_tokens=46611, chunked_prefill_size="
                    "18446744073709551617, max_prefill_tokens=16384, max_running_requests=2049"),
            "x.log:1:72: --chunked-prefill-size '18446744073709551617' is out of range: a count "
            "is at most 2147483647");
  EXPECT_EQ(refusal("[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611.5, K size: "
                    "1.42 GB"),
            "x.log:1:59: KV cache tokens '46611.5' is not a whole number");
}

TEST(LogBounds, NotFiniteNumbersAreRefused) {
  EXPECT_EQ(refusal("[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=inf GB"),
            "x.log:1:56: free before weights (F) 'inf' is not a finite number");
  EXPECT_EQ(refusal("INFO 12-13 19:54:18 worker.py:243] model weights take nan GiB"),
            "x.log:1:55: model weights 'nan' is not a finite number");
  EXPECT_EQ(refusal("[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=-1.00 GB"),
            "x.log:1:56: free before weights (F) '-1.00' is negative");
  EXPECT_EQ(refusal("[2025-03-14 06:57:01 TP2] torch.OutOfMemoryError: CUDA out of memory. "
                    "Tried to allocate 1e400 GiB. GPU 2 has a total capacity of 23.57 GiB of "
                    "which 10.00 MiB is free."),
            "x.log:1:89: the size the out-of-memory error asked for '1e400' is not a finite "
            "number");
}

TEST(LogBounds, ABatchSizeBeyondAnIntegerFlagIsRefused) {
  EXPECT_EQ(refusal("[2025-03-08 12:29:22 TP0] Capture cuda graph bs [1, 2, 4, 4294967296]"),
            "x.log:1:59: a captured batch size '4294967296' is out of range: a count is at most "
            "2147483647");
  // A list cut off inside is not a list of sizes: read as nothing, and said so.
  const Result<StartupLog> cut = read_startup_log(
      "[2025-12-09 05:12:24 DP0 TP0] Capture cuda graph bs [1, 2, 4, 8, 12, 16, 24, 32, 40\n"
      "[2025-12-09 05:12:24 DP0 TP0] Memory pool end. avail mem=7.43 GB\n",
      std::nullopt);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->runs[0].flag("--cuda-graph-bs"), nullptr);
  EXPECT_EQ(
      cut->runs[0].notes,
      std::vector<std::string>{"line 1: the list of captured batch sizes is cut off; not used"});
}

// Flags reach the scenario as written, and the scenario's reader and the engine refuse what
// they refuse at the line and column of the log that states it.
TEST(LogBounds, AFlagTheScenarioRefusesIsReportedAtItsLogLine) {
  const std::string log =
      "python3 -m sglang.launch_server --model-path Qwen/QwQ-32B --tp-size 100000\n"
      "[2025-03-08 12:29:04] server_args=ServerArgs(model_path='Qwen/QwQ-32B', "
      "mem_fraction_static=inf, tp_size=100000)\n"
      "[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=21.63 GB\n";
  const Result<StartupLog> read = read_startup_log(log, std::nullopt);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ExplainOverrides gpu;
  gpu.gpu = "l4";
  const ExplainContext ctx{test_catalogs().gpus,
                           test_catalogs().models,
                           [](const Scenario&, Diagnostics&) {
                             return std::optional<SimulationConstants>(SimulationConstants{});
                           },
                           {}};
  const Explanation e = explain_log(read.value(), "x.log", nullptr, gpu, ctx);
  ASSERT_EQ(e.runs.size(), 1u);
  EXPECT_EQ(e.runs[0].not_replayed,
            "the implied scenario is invalid: x.log:1:69: 'count' (GPUs per node) must be "
            "between 1 and 64, got 100000");
  const Result<StartupLog> fraction =
      read_startup_log(log.substr(log.find('\n') + 1), std::nullopt);
  ASSERT_TRUE(fraction.ok());
  LogRun run = fraction->runs[0];
  std::erase_if(run.flags, [](const LoggedFlag& f) { return f.flag == "--tp-size"; });
  EXPECT_EQ(explain_run(run, LogEngine::kSglang, "x.log", "x", nullptr, gpu, ctx).not_replayed,
            "the replay was refused: x.log:1:93: '--mem-fraction-static' must be a number, got "
            "'inf'");
}

}  // namespace
}  // namespace gpumem
