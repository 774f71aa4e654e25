// The classes of log lines explain misread or missed before issue 21, each on a real public
// log of the corpus (tests/data/engine-logs/) where one shows it: frames without a time,
// vLLM's newest memory summary, start-ups pasted together or split apart, failures, the GPU
// named where a log names it; the flag forms no corpus log holds
// (`32K`, `$((...))`, pipeline-stage prefixes) on lines written in the engines' own form.
#include <gtest/gtest.h>

#include <string>

#include "catalog/hf_cache.h"
#include "explain/explanation.h"
#include "explain/explanation_render.h"
#include "explain/gpu_choice.h"
#include "explain/implied_scenario.h"
#include "explain/log_line.h"
#include "explain/log_reader.h"
#include "explain/shell_value.h"
#include "explain/version_choice.h"
#include "support/published_constants.h"
#include "support/test_catalogs.h"
#include "tests/explain/corpus_reading.h"

namespace gpumem {
namespace {

// The scenario the first start-up of `text` implies.
ImpliedScenario implied_by(const std::string& text, LogEngine engine) {
  const StartupLog log = read_log_text(text);
  if (log.runs.empty()) return {};
  return infer_scenario(log.runs.front(), engine, "l.log", test_catalogs().gpus,
                        test_catalogs().models);
}

TEST(ReaderClasses, AVllmFrameWithoutTime) {
  const StartupLog log = read_corpus_log("vllm-h20-x1-qwen3.5-27b-kv-size-log");
  EXPECT_EQ(log.engine, LogEngine::kVllm);
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.first(Quantity::kKvTokens)->value, 290864);
  EXPECT_EQ(r.first(Quantity::kKvTokens)->line, 9);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kMaxConcurrency)->value, 33.04);
  // "INFO  [gpu_worker.py:642]  Available KV cache memory": two spaces, as the post has them.
  const StartupLog laptop =
      read_corpus_log("vllm-rtx5090laptop-x1-qwen3.8-27b-nvfp4-cudagraph-oom");
  EXPECT_DOUBLE_EQ(laptop.runs.at(0).first(Quantity::kAvailableKvMemory)->value, 2.97);
  // vllm #25350's post keeps the source of a line and cuts its level and time.
  const StartupLog cut = read_log_text(
      "GPU KV cache size: 230,528 tokens\n"
      "[kv_cache_utils.py:868] Maximum concurrency for 100,000 tokens per request: 2.31x\n");
  EXPECT_DOUBLE_EQ(cut.runs.at(0).first(Quantity::kMaxConcurrency)->value, 2.31);
  EXPECT_EQ(cut.runs.at(0).first(Quantity::kMaxConcurrency)->line, 2);
  // Not in the middle of a line, nor a bracket that is no source location.
  EXPECT_EQ(split_log_lines("see [kv_cache_utils.py:868] for it")[0].message,
            "see [kv_cache_utils.py:868] for it");
  EXPECT_EQ(split_log_lines("[notes.py] the engine is up")[0].message,
            "[notes.py] the engine is up");
  // A level before a sentence is not a frame.
  EXPECT_EQ(split_log_lines("INFO [note] the engine is up")[0].message,
            "INFO [note] the engine is up");
}

TEST(ReaderClasses, TheNewestVllmSummaryInGiB) {
  // "Actual usage is 40.33 GiB for consumed memory (weights + non-torch), 3.12 GiB for peak
  // activation, and 2.51 GiB for CUDAGraph memory. ... Current kv cache memory in use is
  // 1.58 GiB." — no weights figure, and GiB where older releases printed bytes.
  const StartupLog r_log = read_corpus_log("vllm-48gb-ampere-x4-deepseek-v4-flash-sm8x-kv-hint");
  const LogRun& r = r_log.runs.at(0);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kConsumedMemory)->value, 40.33);
  EXPECT_EQ(r.first(Quantity::kModelLoading), nullptr);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kActivationPeak)->value, 3.12);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kGraphUsage)->value, 2.51);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kAvailableKvMemory)->value, 1.58);
  EXPECT_EQ(r.first(Quantity::kAvailableKvMemory)->decimals, 2);
  // Cut after "43.4 G": still GiB (a fraction is not a byte count).
  const StartupLog cut_log = read_corpus_log("vllm-80gb-x4-qwen3.5-35b-a3b-dflash-kv-memory-hint");
  const LogRun& cut = cut_log.runs.at(0);
  EXPECT_DOUBLE_EQ(cut.all(Quantity::kAvailableKvMemory).at(1)->value, 43.4);
  EXPECT_EQ(cut.all(Quantity::kAvailableKvMemory).at(1)->line, 8);
}

TEST(ReaderClasses, HumanReadableAndShellArithmeticFlagValues) {
  EXPECT_EQ(human_readable_int("32K"), 32768);
  EXPECT_EQ(human_readable_int("32k"), 32000);
  EXPECT_EQ(human_readable_int("25.6k"), 25600);
  EXPECT_EQ(human_readable_int("1.5K"), std::nullopt);  // vLLM refuses decimals with K
  EXPECT_EQ(human_readable_int("4096"), std::nullopt);
  EXPECT_EQ(shell_arithmetic("$((32*1024))"), 32768);
  EXPECT_EQ(shell_arithmetic("$(( (4 + 4) * 1024 - 7 / 2 ))"), 8189);
  EXPECT_EQ(shell_arithmetic("$((MAX / 2))"), std::nullopt);
  EXPECT_EQ(shell_arithmetic("$((9223372036854775807 + 1))"), std::nullopt);
  const StartupLog log = read_log_text(
      "vllm serve Qwen/Qwen3-8B --max-model-len 32K --max-num-batched-tokens $((8*1024)) "
      "--max-num-seqs $SEQS\n"
      "INFO 05-28 08:00:26 [gpu_worker.py:462] Available KV cache memory: 6.37 GiB\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.flag("--max-model-len")->values, std::vector<std::string>{"32768"});
  EXPECT_EQ(r.flag("--max-num-batched-tokens")->values, std::vector<std::string>{"8192"});
  EXPECT_EQ(r.flag("--max-num-seqs"), nullptr);
  EXPECT_EQ(r.notes, std::vector<std::string>{"line 1: --max-num-seqs $SEQS names a shell "
                                              "variable the log does not show; left out"});
  // SGLang reads plain integers: "32K" reaches its reader as written, to be refused there.
  const StartupLog sglang = read_log_text(
      "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32K\n"
      "[2025-05-14 09:29:03] KV Cache is allocated. #tokens: 404890, K size: 27.80 GB, V size: "
      "27.80 GB\n");
  EXPECT_EQ(sglang.runs.at(0).flag("--context-length")->values, std::vector<std::string>{"32K"});
}

// Inside double quotes a backslash escapes only $ ` " and itself, as the shell reads it; in
// single quotes it is literal (a real RTX 4090 notebook quotes its JSON this way).
TEST(ReaderClasses, DoubleQuotedValuesKeepTheShellsEscapes) {
  const StartupLog log = read_log_text(
      "$ vllm serve Qwen/Qwen2.5-VL-7B-Instruct --limit-mm-per-prompt \"{\\\"image\\\":1}\" "
      "--served-model-name \"a\\\\b\\$c\\d\" --chat-template '\\n'\n"
      "INFO 05-28 08:00:26 [gpu_worker.py:462] Available KV cache memory: 6.37 GiB\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.flag("--limit-mm-per-prompt")->values, std::vector<std::string>{"{\"image\":1}"});
  EXPECT_EQ(r.flag("--served-model-name")->values, std::vector<std::string>{"a\\b$c\\d"});
  EXPECT_EQ(r.flag("--chat-template")->values, std::vector<std::string>{"\\n"});
}

TEST(ReaderClasses, LaunchesPastedTogetherAreToldApart) {
  // The same rank's KV line again, at an earlier time: the post's second run (on main).
  const StartupLog b200 = read_corpus_log("sglang-b200-x8-deepseek-v3.2-exp-dp8-indexer-kv");
  ASSERT_EQ(b200.runs.size(), 2u);
  EXPECT_EQ(b200.runs[1].first(Quantity::kKvTokens)->value, 1462784);
  // Another rank's capture line 4 minutes 39 seconds later: another capture run.
  const StartupLog bs256 = read_corpus_log("sglang-h200-x8-deepseek-v3-cudagraph-bs256");
  ASSERT_EQ(bs256.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(bs256.runs[1].first(Quantity::kGraphUsage)->value, 6.27);
  // The engine core's pid changes (the description's 10-25 run), then comes back (the
  // 10-31 run's traceback): two start-ups, the first taken up again.
  const StartupLog pids = read_corpus_log("vllm-h100-x1-gpt-oss-120b-no-cache-blocks");
  ASSERT_EQ(pids.runs.size(), 2u);
  EXPECT_EQ(pids.runs[0].first(Quantity::kKvCacheNeeded)->line, 39);
  EXPECT_EQ(pids.runs[0].problems.back().kind, ProblemKind::kKvCacheTooSmall);
  EXPECT_EQ(pids.runs[1].problems.back().kind, ProblemKind::kNoKvMemory);
  EXPECT_EQ(pids.runs[1].first_line, 23);
}

TEST(ReaderClasses, PerWorkerKvLinesAreOneStartUp) {
  // vLLM 0.8's engine process prints the KV cache size once per worker, without a rank.
  const StartupLog log = read_corpus_log("vllm-unknown-x8-deepseek-r1-distill-llama-70b-v1-oom");
  ASSERT_EQ(log.runs.size(), 1u);
  const std::vector<const Observation*> kv = log.runs[0].all(Quantity::kKvTokens);
  ASSERT_EQ(kv.size(), 7u);
  EXPECT_EQ(kv[0]->rank, 0);
  EXPECT_EQ(kv[6]->rank, 6);
  EXPECT_EQ(log.runs[0].all(Quantity::kMaxConcurrency).size(), 6u);  // the excerpt ends first
}

TEST(ReaderClasses, PipelineStagePrefixes) {
  // vLLM's multiprocess executor names workers Worker_PP<stage>_TP<rank> when PP > 1.
  const std::vector<LogLine> l = split_log_lines(
      "(Worker_PP1_TP0 pid=31) INFO 02-08 10:00:00 [gpu_worker.py:298] Available KV cache "
      "memory: 3.18 GiB\n"
      "[2026-02-08 10:00:00 PP1 TP3] Load weight end. avail mem=12.00 GB, mem usage=9.00 GB.");
  EXPECT_EQ(l[0].pp, 1);
  EXPECT_EQ(l[0].tp, 0);
  EXPECT_EQ(l[1].pp, 1);
  EXPECT_EQ(l[1].tp, 3);
  const StartupLog log = read_log_text(
      "(Worker_PP0_TP0 pid=30) INFO 02-08 10:00:00 [gpu_worker.py:298] Available KV cache "
      "memory: 5.00 GiB\n"
      "(Worker_PP1_TP0 pid=31) INFO 02-08 10:00:00 [gpu_worker.py:298] Available KV cache "
      "memory: 3.18 GiB\n");
  ASSERT_EQ(log.runs.size(), 1u);
  EXPECT_EQ(log.runs[0].all(Quantity::kAvailableKvMemory).at(1)->pp, 1);
}

// The post pastes vLLM's argument dump below the start-up's figures, whose lines print only the
// max model length: the dump's flags and model are that start-up's.
TEST(ReaderClasses, AnArgumentDumpPastedBelowItsFigures) {
  const StartupLog log = read_corpus_log("vllm-rtx3090-x2-qwen3.6-27b-autoround-int4-mtp");
  ASSERT_EQ(log.runs.size(), 1u);
  const LogRun& r = log.runs[0];
  EXPECT_EQ(r.first(Quantity::kKvTokens)->value, 620944);
  ASSERT_NE(r.flag("--tensor-parallel-size"), nullptr);
  EXPECT_EQ(r.flag("--tensor-parallel-size")->values, std::vector<std::string>{"2"});
  EXPECT_EQ(r.model, "~/.cache/huggingface/qwen3.6-27b-autoround-int4");
}

// A figure of stage 1 is on global GPU TP size + its rank even where the start-up is not
// replayed (no model named): the stages as wide as the highest TP rank the log names.
TEST(ReaderClasses, AStageRankIsAGlobalGpuWithoutAReplay) {
  const StartupLog log = read_log_text(
      "(Worker_PP1_TP3 pid=4365) INFO 08-31 15:25:55 [gpu_worker.py:742] Available KV cache "
      "memory: 1.95 GiB\n"
      "(Worker_PP0_TP3 pid=4361) INFO 08-31 15:25:55 [gpu_worker.py:742] Available KV cache "
      "memory: 2.10 GiB\n");
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, nullptr, {}};
  ExplainOverrides gpu;
  gpu.gpu = "rtx-3090";
  const Explanation e = explain_log(log, "pp.log", nullptr, gpu, ctx);
  ASSERT_EQ(e.runs.at(0).figures.size(), 2u);
  EXPECT_EQ(e.runs[0].figures[0].gpu, 7);
  EXPECT_EQ(e.runs[0].figures[1].gpu, 3);
}

// vllm multiproc_executor.py names a worker "Worker_TP<rank>" only when TP > 1: a log that
// names TP0 alone (club-3090 #1079, 2 x RTX 5090) ran at least two GPUs.
TEST(ReaderClasses, AVllmWorkerNamedByTpRankMeansTwoGpusAtLeast) {
  const StartupLog log = read_log_text(
      "(Worker_TP0 pid=206) INFO 08-20 21:41:36 [gpu_worker.py:436] Available KV cache "
      "memory: 15.99 GiB\n");
  const ImpliedScenario s = infer_scenario(log.runs.at(0), LogEngine::kVllm, "tp.log",
                                           test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.gpus_per_node, 2);
  EXPECT_EQ(s.count_note,
            "rank prefixes up to TP0 (vLLM names a worker by its TP rank only when TP > 1: at "
            "least 2)");
  // An excerpt's highest rank bounds the TP size from below; one that is no power of two is
  // rounded up to the next (sglang #10088 shows TP0 and TP6 only).
  const ImpliedScenario eight = implied_by(
      "[2025-09-05 20:48:29 TP0] Capture cuda graph end. Time elapsed: 12.11 s. mem usage=0.54 "
      "GB. avail mem=16.74 GB.\n"
      "[2025-09-05 20:50:29 TP6] Capture draft cuda graph end. Time elapsed: 62.67 s. mem "
      "usage=0.21 GB. avail mem=15.31 GB.\n",
      LogEngine::kSglang);
  EXPECT_EQ(eight.gpus_per_node, 8);
  EXPECT_EQ(eight.count_note,
            "rank prefixes up to TP6 (7 is a lower bound; taken as 8, the next power of two, as "
            "TP sizes split attention heads)");
  // SGLang names every scheduler "TP<rank>", one GPU included.
  EXPECT_EQ(implied_by("[2026-07-14 05:48:43 TP0] KV Cache is allocated. #tokens: 38141, K size: "
                       "2.33 GB, V size: 2.33 GB\n",
                       LogEngine::kSglang)
                .gpus_per_node,
            1);
}

// vLLM V0's multiprocessing workers name their pid, not their rank: each is one GPU beside the
// driver's (vllm #11251, v0.6.4.post1 on two 16 GB cards).
TEST(ReaderClasses, VllmV0WorkerProcessesAreRanksBesideTheDriver) {
  const StartupLog log = read_log_text(
      "INFO 12-20 20:25:46 worker.py:241] model weights take 7.51GiB; non_torch_memory takes "
      "0.39GiB; PyTorch activation peak memory takes 2.53GiB; the rest of the memory reserved "
      "for KV Cache is 3.76GiB.\n"
      "(VllmWorkerProcess pid=90) INFO 12-20 20:25:46 worker.py:241] model weights take "
      "7.51GiB; non_torch_memory takes 0.39GiB; PyTorch activation peak memory takes 2.53GiB; "
      "the rest of the memory reserved for KV Cache is 3.80GiB.\n");
  const LogRun& r = log.runs.at(0);
  const std::vector<const Observation*> kv = r.all(Quantity::kAvailableKvMemory);
  ASSERT_EQ(kv.size(), 2u);
  EXPECT_FALSE(kv[0]->rank.has_value());
  EXPECT_EQ(kv[1]->rank, 1);
  const ImpliedScenario s =
      infer_scenario(r, LogEngine::kVllm, "v0.log", test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.gpus_per_node, 2);
  EXPECT_EQ(s.count_note,
            "vLLM V0's worker processes name no rank: 1 beside the driver ('VllmWorkerProcess "
            "pid=90'), so at least 2 GPUs, taken as TP 2");
  // A log of more distinct worker pids than a node has GPUs counts the first 64 only.
  std::string many;
  for (int pid = 1; pid <= 200; ++pid) {
    many += "(VllmWorkerProcess pid=" + std::to_string(pid) +
            ") INFO 12-20 20:25:46 worker.py:241] model weights take 7.51GiB; non_torch_memory "
            "takes 0.39GiB; PyTorch activation peak memory takes 2.53GiB; the rest of the memory "
            "reserved for KV Cache is 3.80GiB.\n";
  }
  EXPECT_EQ(read_log_text(many).runs.at(0).unranked_workers.size(), 64u);
}

// V0 prints the utilization with two decimals; its budget and the total beside it say which
// value the launch gave (vllm #15340: 0.945 on four RTX 3090s, printed 0.94).
TEST(ReaderClasses, TheUtilizationTheBudgetImplies) {
  const StartupLog log = read_log_text(
      "INFO 03-22 18:53:23 [worker.py:267] the current vLLM instance can use total_gpu_memory "
      "(23.58GiB) x gpu_memory_utilization (0.94) = 22.29GiB\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.945"});
  EXPECT_EQ(r.notes.at(0),
            "line 1: the utilization is printed with two decimals; the total and the budget "
            "beside it say 0.945");
  // Where the printed value agrees, it stays.
  const StartupLog agrees = read_log_text(
      "INFO 12-20 20:25:46 worker.py:241] the current vLLM instance can use total_gpu_memory "
      "(15.77GiB) x gpu_memory_utilization (0.90) = 14.20GiB\n");
  EXPECT_EQ(agrees.runs.at(0).flag("--gpu-memory-utilization")->values,
            std::vector<std::string>{"0.90"});
  EXPECT_TRUE(agrees.runs.at(0).notes.empty());
  // A utilization out of bounds is refused before any budget arithmetic, and a zero total
  // implies nothing.
  const Result<StartupLog> huge = read_startup_log(
      "INFO 12-20 20:25:46 worker.py:241] the current vLLM instance can use total_gpu_memory "
      "(23.58GiB) x gpu_memory_utilization (3000000000.0) = 35.40GiB\n",
      std::nullopt, "x.log");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().message(),
            "x.log:1:124: gpu_memory_utilization '3000000000.0' is out of range: a count is at "
            "most 2147483647");
  const StartupLog zero = read_log_text(
      "INFO 12-20 20:25:46 worker.py:241] the current vLLM instance can use total_gpu_memory "
      "(0.00GiB) x gpu_memory_utilization (0.90) = 14.20GiB\n");
  EXPECT_EQ(zero.runs.at(0).flag("--gpu-memory-utilization")->values,
            std::vector<std::string>{"0.90"});
}

// With --kv-cache-memory vLLM skips the profile and prints the free memory and the KV cache it
// reserves instead (vllm issue #49878, v0.26).
TEST(ReaderClasses, TheKvCacheMemoryFlagsReservationLine) {
  const StartupLog log = read_log_text(
      "(EngineCore pid=83) INFO 07-26 12:29:34 [gpu_worker.py:479] Initial free memory 93.88 GiB, "
      "reserved 49.0 GiB memory for KV Cache as specified by kv_cache_memory_bytes config and "
      "skipped memory profiling. This does not respect the gpu_memory_utilization config.\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAtStartup)->value, 93.88);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kAvailableKvMemory)->value, 49.0);
  EXPECT_EQ(r.first(Quantity::kAvailableKvMemory)->decimals, 1);
}

// SGLang 0.5.12's per-kind graph lines other than the target decode ones are noted, not read.
TEST(ReaderClasses, SglangPrefillGraphLinesAreNotedNotRead) {
  const StartupLog log = read_log_text(
      "[2026-06-28 14:01:49 TP5] Memory pool end. avail mem=10.80 GB\n"
      "[2026-06-28 14:01:50 TP5] Capture target prefill CUDA graph begin. backend=tc_piecewise, "
      "num_tokens=[4, 8], avail mem=10.10 GB\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.first(Quantity::kFreeBeforeGraphs), nullptr);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0],
            "line 2: 'Capture target prefill CUDA graph begin' is not compared (gpumem prints the "
            "decode graphs' lines)");
}

TEST(ReaderClasses, FailuresTheLogStates) {
  const StartupLog no_blocks_log = read_corpus_log("vllm-h100-x1-gpt-oss-120b-no-cache-blocks");
  const LoggedProblem& no_blocks = no_blocks_log.runs.at(1).problems.back();
  EXPECT_EQ(no_blocks.kind, ProblemKind::kNoKvMemory);
  // "model's" (newer) as well as "models's".
  const StartupLog gh200_log = read_corpus_log("vllm-gh200-x2-deepseek-v4-flash-kv-too-small");
  const LogRun& gh200 = gh200_log.runs.at(0);
  EXPECT_EQ(gh200.problems.at(0).kind, ProblemKind::kKvCacheTooSmall);
  EXPECT_DOUBLE_EQ(gh200.first(Quantity::kKvCacheNeeded)->value, 6.66);
  EXPECT_DOUBLE_EQ(gh200.first(Quantity::kAvailableKvMemory)->value, 5.44);
  EXPECT_EQ(gh200.first(Quantity::kKvTokensStorable)->value, 13528);
  EXPECT_EQ(gh200.flag("--max-model-len")->values, std::vector<std::string>{"30000"});
  const StartupLog v4_log = read_corpus_log("sglang-h200-x8-deepseek-v4-pro-fp8-no-kv-room");
  const LogRun& v4 = v4_log.runs.at(0);
  EXPECT_EQ(v4.problems.at(0).kind, ProblemKind::kNotEnoughMemory);
  EXPECT_EQ(v4.flag("--mem-fraction-static")->values, std::vector<std::string>{"0.88"});
  // torch's message wrapped by a terminal: "of                              which".
  const StartupLog glm_log = read_corpus_log("sglang-48gb-x2-glm5.1-lsglang-mtp-lkmoe-oom");
  const LogRun& glm = glm_log.runs.at(0);
  EXPECT_DOUBLE_EQ(*glm.problems.at(0).requested_gib, 24.0 / 1024);
  EXPECT_DOUBLE_EQ(*glm.problems.at(0).free_gib, 4.31 / 1024);
  EXPECT_DOUBLE_EQ(glm.first(Quantity::kTotalMemory)->value, 47.37);
  // A graph capture's "RuntimeError: CUDA error: out of memory".
  const StartupLog gemma =
      read_corpus_log("vllm-24gb-x1-gemma-3-27b-it-int4-awq-v083-v0-kv-too-small-graph-oom");
  EXPECT_EQ(gemma.runs.at(1).problems.at(0).kind, ProblemKind::kOutOfMemory);
  // A traceback that ends with the same ValueError is the same failure.
  const StartupLog twice = read_corpus_log("vllm-rtx3090-x1-qwen3.8-27b-low-ram-kv-too-small");
  ASSERT_EQ(twice.runs.size(), 1u);
  EXPECT_EQ(twice.runs[0].problems.size(), 1u);
}

// A post's own lines are no log lines: a Markdown heading or shell comment that quotes an error
// is no failure of the start-up (vllm #11251, turn 7: the thread's title above its log).
TEST(ReaderClasses, APostsHeadingIsNoFailure) {
  const StartupLog log = read_log_text(
      "# torch.OutOfMemoryError for 0.6.4.post1 but 0.6.3.post1 is working\n"
      "(VllmWorkerProcess pid=90) INFO 12-19 09:30:25 model_runner.py:1097] Loading model "
      "weights took 7.5122 GB\n"
      "INFO 12-19 09:30:42 distributed_gpu_executor.py:57] # GPU blocks: 4660, # CPU blocks: "
      "2048\n");
  const LogRun& r = log.runs.at(0);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_EQ(r.first(Quantity::kGpuBlocks)->value, 4660);
  // V0's own "# GPU blocks" line is read even where a post cut its frame off (vllm #10517).
  EXPECT_EQ(read_corpus_log("case23-vllm-rtx3090-x1-llama3.1-8b-maxlen-sweep")
                .runs.at(1)
                .first(Quantity::kGpuBlocks)
                ->value,
            1478);
  // A root prompt's command is still read as the launch.
  const StartupLog root = read_log_text("# vllm serve Qwen/Qwen3-8B --max-model-len 8192\n");
  EXPECT_EQ(root.runs.at(0).flag("--max-model-len")->values, std::vector<std::string>{"8192"});
}

// SGLang's 2024 releases framed a line with the time and rank only: "[23:17:01 TP7]" (sglang
// #1479, DeepSeek-V2.5 on 8 GPUs).
TEST(ReaderClasses, AnSglangFrameWithoutDate) {
  const StartupLog log = read_log_text(
      "[23:17:01 TP7] Load weight end. type=DeepseekV2ForCausalLM, dtype=torch.bfloat16, avail "
      "mem=22.01 GB\n"
      "[23:17:01 TP6] Memory pool end. avail mem=18.61 GB\n");
  EXPECT_EQ(log.engine, LogEngine::kSglang);
  const LogRun& r = log.runs.at(0);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAfterWeights)->value, 22.01);
  EXPECT_EQ(r.first(Quantity::kFreeAfterWeights)->rank, 7);
  EXPECT_EQ(split_log_lines("[23:17:01] no rank, no frame")[0].message,
            "[23:17:01] no rank, no frame");
}

TEST(ReaderClasses, TheGpuWhereTheLogNamesIt) {
  const GpuCatalog& gpus = test_catalogs().gpus;
  // device_name= of the fused-MoE config SGLang looked for.
  const StartupLog kimi_log =
      read_corpus_log("sglang-rtxpro6000-x4-kimi-k2-thinking-ktransformers-shm-crash");
  const LogRun& kimi = kimi_log.runs.at(0);
  EXPECT_EQ(kimi.gpu_name, "NVIDIA_RTX_PRO_6000_Blackwell_Workstation_Edition");
  EXPECT_EQ(choose_gpu(kimi, gpus).name, "rtx-pro-6000-blackwell");
  // The end of such a name, the line cut at its start.
  const StartupLog a800_log = read_corpus_log("vllm-a800-x1-qwen3-vl-30b-a3b-engine-fail");
  const GpuChoice a800 = choose_gpu(a800_log.runs.at(0), gpus);
  EXPECT_EQ(a800.name, "a800-sxm4-80gb");
  EXPECT_EQ(a800.note,
            "'A800-SXM4-80GB', the end of a device name, line 6, ends NVIDIA A800-SXM4-80GB");
  // torch's "total capacity of 95.08 GiB": the H20's CUDA total (95.00 GiB) within 1%.
  const StartupLog h20 = read_corpus_log("sglang-h20-x1-qwen3-next-80b-int8dq-oom");
  EXPECT_EQ(choose_gpu(h20.runs.at(0), gpus).name, "h20-96gb");
  // A total no catalog GPU is near: an unlisted GPU of that total (the RTX 4060's 8 GB).
  const StartupLog small_log = read_corpus_log("vllm-rtx4060-x1-qwen2.5-7b-v0-negative-kv");
  const GpuChoice small = choose_gpu(small_log.runs.at(0), gpus);
  EXPECT_EQ(small.name, "unlisted-8.00gib");
  ASSERT_TRUE(small.unlisted.has_value());
  EXPECT_EQ(small.unlisted->cuda_total->value(), 8589934592);
  EXPECT_EQ(small.note,
            "CUDA total 8.00 GiB (line 8) matches no GPU in the catalog: an unlisted GPU of 8.00 "
            "GiB, otherwise modelled on " +
                small.template_name + " (the catalog GPU of the nearest size)");
  // --gpu: a catalog name, an nvidia-smi name in either spelling, or a bare total.
  EXPECT_EQ(gpu_from_option(gpus, "h20")->name, "h20-96gb");
  EXPECT_EQ(gpu_from_option(gpus, "NVIDIA GeForce RTX 4090")->name, "rtx-4090");
  EXPECT_EQ(gpu_from_option(gpus, "nvidia_h20")->name, "h20-96gb");
  EXPECT_EQ(gpu_from_option(gpus, "47.37GiB")->name, "unlisted-47.37gib");
  EXPECT_FALSE(gpu_from_option(gpus, "a-gpu").has_value());
}

// vLLM's DEBUG profile lines (vllm #55169, a sleeping sibling's 32.4 GiB counted as non-torch):
// the utilization, the budget and the profile's three parts, all read.
TEST(ReaderClasses, VllmDebugProfileLines) {
  const StartupLog log = read_corpus_log("vllm-h100-x1-sleep-mode-profiling-gross-error");
  const LogRun& r = log.runs.at(0);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAtStartup)->value, 77.39);
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.825000"});
  EXPECT_DOUBLE_EQ(r.first(Quantity::kRequestedMemory)->value, 65.32);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kActivationPeak)->value, 0.34);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kNonTorchMemory)->value, 32.4);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kModelLoading)->value, 0.93);
  EXPECT_EQ(r.first(Quantity::kModelLoading)->line, 25);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kAvailableKvMemory)->value, 31.65);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(r.notes[0].starts_with("line 24: free memory after profiling is not compared"))
      << r.notes[0];
}

// Lines of vLLM releases newer than gpumem models (2026): Model Runner V2's CUDA-graph
// profile gives the estimate and dates the log; the allocator memory cleared before the KV
// cache is noted, not compared. Written in the engine's own form (no corpus log holds them).
TEST(ReaderClasses, TheNewestVllmGraphProfileAndCacheClearing) {
  const StartupLog log = read_log_text(
      "INFO 09-10 10:00:00 [gpu_model_runner.py:2000] Model loading took 15.27 GiB memory and "
      "10.0 seconds\n"
      "INFO 09-10 10:00:09 [cudagraph_utils.py:400] CUDA graph memory profile: capture took "
      "0.41 GiB with 3 of 35 FULL graphs (tokens: 512/3.1 MiB, 504/3.0 MiB, 1/1.0 MiB); the "
      "other 32 FULL graphs add 0.09 GiB; estimate 0.50 GiB.\n"
      "INFO 09-10 10:00:10 [gpu_worker.py:300] Available KV cache memory: 100.5 GiB\n"
      "INFO 09-10 10:00:10 [gpu_worker.py:310] Cleared 1.25 GiB of cached CUDA allocator memory "
      "before KV cache allocation.\n");
  const LogRun& r = log.runs.at(0);
  ASSERT_NE(r.first(Quantity::kCudaGraphEstimate), nullptr);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kCudaGraphEstimate)->value, 0.50);
  EXPECT_EQ(r.first(Quantity::kCudaGraphEstimate)->line, 2);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(r.notes[0].starts_with(
      "line 4: the cached allocator memory released before the KV cache is not compared"))
      << r.notes[0];
  const VersionChoice v = choose_version(r, LogEngine::kVllm);
  EXPECT_NE(v.note.find("Model Runner V2's 'CUDA graph memory profile' (line 2)"),
            std::string::npos)
      << v.note;
}

// SGLang's sliding-window pool prints each pool's "KV Cache is allocated" before its own
// "SWAKVPool mem usage" line, which gives max_total_num_tokens ("full size") and the window's
// tokens; an excerpt without the "Use sliding window memory pool" line no longer reads the
// second pool as a speculative draft's, nor rank 0's window pool (4.82 GB) as its KV cache
// (sglang #15464, MiMo-V2-Flash on four B200s).
TEST(ReaderClasses, TheSlidingWindowPoolsLinesBeforeItsTotal) {
  const StartupLog log = read_corpus_log("sglang-b200-x4-mimo-v2-flash-fp8-swa");
  const LogRun& r = log.runs.at(0);
  EXPECT_TRUE(r.all(Quantity::kKSize).empty());
  const std::vector<const Observation*> tokens = r.all(Quantity::kKvTokens);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[1]->line, 11);
  EXPECT_EQ(tokens[1]->rank, 0);
  EXPECT_DOUBLE_EQ(tokens[1]->value, 1496958);
  EXPECT_EQ(r.all(Quantity::kSwaKvTokens).size(), 4u);
  for (const std::string& n : r.notes) EXPECT_EQ(n.find("draft"), std::string::npos) << n;
}

// vLLM's "X has no vLLM implementation, falling back to Transformers implementation" is the
// Transformers backend, as --model-impl transformers asks (vllm #18107, Qwen3-30B-A3B-GPTQ on
// V0): replayed as vLLM's own MoE it would start; the flag is refused for the model
// (LlamaAliases.TheTransformersBackendIsModelledWhereVllmTakesItAnyway). The OOM asks less than
// CUDA reported free, which the diagnosis says instead of a negative shortfall.
TEST(ReaderClasses, TheTransformersFallbackIsTheBackendFlag) {
  const StartupLog log = read_corpus_log("vllm-unknown32gb-x1-qwen3-30b-a3b-gptq-oom-load");
  const LogRun& r = log.runs.at(0);
  ASSERT_NE(r.flag("--model-impl"), nullptr);
  EXPECT_EQ(r.flag("--model-impl")->values, std::vector<std::string>{"transformers"});
  EXPECT_EQ(r.flag("--model-impl")->line, 9);
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  const RunExplanation e = explain_log(log, "fallback.log", nullptr, {}, ctx).runs.at(0);
  EXPECT_NE(e.not_replayed.find("--model-impl transformers with Qwen3MoeForCausalLM is not "
                                "modelled"),
            std::string::npos)
      << e.not_replayed;
  bool said = false;
  for (const std::string& d : e.diagnosis) {
    said = said || d.find("asking 20.00 MiB with 43.75 MiB free (no shortfall in the figures") !=
                       std::string::npos;
  }
  EXPECT_TRUE(said);
}

// sglang #7691 (ROCm, DeepSeek-R1, DP attention over 8 ranks): "max_total_tokens=131072 is
// larger than the profiled value -561981" on every rank is an empty KV pool, and the ranks of
// those failure lines count the GPUs.
TEST(ReaderClasses, ANegativeProfiledPoolOnEveryRank) {
  const StartupLog log = read_corpus_log("sglang-rocm-x8-deepseek-r1-dp8-negative-profiled-tokens");
  const LogRun& r = log.runs.at(0);
  ASSERT_EQ(r.problems.size(), 8u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kNotEnoughMemory);
  EXPECT_EQ(r.problems[0].line, 7);
  EXPECT_EQ(r.flag("--max-total-tokens")->values, std::vector<std::string>{"131072"});
  const ImpliedScenario s =
      infer_scenario(r, LogEngine::kSglang, "dp.log", test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.gpus_per_node, 8);
  EXPECT_EQ(s.count_note, "rank prefixes up to TP7 in 8 DP groups (DP attention)");
  // A positive profiled value is only the pool size the flag gives way to.
  const StartupLog fits = read_log_text(
      "[2025-07-02 07:41:59 TP0] max_total_tokens=131072 is larger than the profiled value "
      "86016. Use the profiled value instead.\n"
      "[2025-07-02 07:41:59 TP0] KV Cache is allocated. #tokens: 86016, K size: 2.33 GB, V size: "
      "2.33 GB\n");
  EXPECT_TRUE(fits.runs.at(0).problems.empty());
}

// sglang PR #18039 (MiMo-V2-Flash, TP 4): the hybrid sliding-window pool's line gives the full
// pool's tokens (max_total_num_tokens) and the window pool's; the per-pool "KV Cache is
// allocated" lines after it are not a speculative draft's.
TEST(ReaderClasses, TheSlidingWindowPoolLine) {
  const StartupLog log = read_corpus_log("sglang-unknown-x4-mimo-v2-flash-tp4-swa-pool");
  const LogRun& r = log.runs.at(0);
  ASSERT_EQ(r.all(Quantity::kKvTokens).size(), 4u);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kKvTokens)->value, 375360);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kSwaKvTokens)->value, 300288);
  EXPECT_EQ(r.first(Quantity::kSwaKvTokens)->rank, 2);
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_TRUE(r.notes[0].starts_with("line 11: one pool of the sliding-window KV cache"))
      << r.notes[0];
}

// vllm #42510: the engine-config line alone names the model, through ModelScope's cache path
// ('___' for '.'), and the release: the log is replayed from scratch on the GPU given.
TEST(ReaderClasses, AConfigLineAloneIsReplayedFromScratch) {
  const StartupLog log = read_corpus_log("vllm-unknown-x1-v0141-llama3.1-8b-block-size-crash");
  ASSERT_EQ(log.runs.size(), 1u);
  const ImpliedScenario s = infer_scenario(log.runs[0], LogEngine::kVllm, "cfg.log",
                                           test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.model.value, "llama-3.1-8b-instruct");
  EXPECT_EQ(s.model.note,
            "'/root/.cache/modelscope/hub/models/LLM-Research/Meta-Llama-3___1-8B-Instruct' (line "
            "8): ModelScope's '___' read as '.': last path component matches alias "
            "meta-llama/Meta-Llama-3.1-8B-Instruct");
  const ExplainContext ctx{test_catalogs().gpus, test_catalogs().models, published_constants, {}};
  ExplainOverrides gpu;
  gpu.gpu = "h100-sxm-80gb";
  const Explanation e = explain_log(log, "cfg.log", nullptr, gpu, ctx);
  ASSERT_TRUE(e.runs.at(0).replayed());
  EXPECT_TRUE(e.runs[0].figures.empty());
  EXPECT_NE(render_explanation_text(e, false).find(
                "  The log prints no memory figure: the replay starts from scratch.\n"),
            std::string::npos);
  // A log naming nothing is still refused.
  EXPECT_EQ(read_startup_log("INFO 05-13 16:41:24 [vllm.py:630] Asynchronous scheduling is "
                             "enabled.\n",
                             LogEngine::kVllm)
                .status()
                .message()
                .substr(0, 38),
            "nothing usable: no vllm start-up memor");
}

// sglang PR #13466 serves moonshotai/Kimi-K2-Instruct-0905, a revision the catalog does not
// hold: the note names the entry whose name it extends, for the user to confirm, and nothing
// is replayed on a guess.
TEST(ReaderClasses, AVariantOfACatalogModelIsNamedNotAssumed) {
  const StartupLog log =
      read_corpus_log("sglang-unknown-x8-kimi-k2-instruct-0905-tp8-piecewise-kv-shrink");
  const ImpliedScenario s = infer_scenario(log.runs.at(0), LogEngine::kSglang, "k.log",
                                           test_catalogs().gpus, test_catalogs().models);
  EXPECT_FALSE(s.model_resolved);
  EXPECT_EQ(s.model.note,
            "'moonshotai/Kimi-K2-Instruct-0905' (line 6) is not in the model catalog; its name "
            "extends moonshotai/Kimi-K2-Instruct's (catalog kimi-k2-instruct): if it has that "
            "architecture and checkpoint format, name it with --model kimi-k2-instruct");
}

// sglang #11751: a docker-compose `command:` writes one option a line with no backslashes;
// they are the command's, and --cpu-offload-gb is read (the replay refuses it by name).
TEST(ReaderClasses, ACommandWithOneOptionALine) {
  const StartupLog log = read_corpus_log("sglang-rtx3090-x2-gpt-oss-120b-cpu-offload-35gb");
  ASSERT_EQ(log.runs.size(), 1u);
  const LogRun& r = log.runs[0];
  EXPECT_EQ(r.model, "unsloth/gpt-oss-120b");
  EXPECT_EQ(r.flag("--tp-size")->values, std::vector<std::string>{"2"});
  EXPECT_EQ(r.flag("--tp-size")->line, 13);
  EXPECT_EQ(r.flag("--mem-fraction-static")->values, std::vector<std::string>{"0.9"});
  EXPECT_EQ(r.flag("--cpu-offload-gb")->values, std::vector<std::string>{"35"});
  EXPECT_TRUE(r.notes.empty());
  // A rule of dashes after a command is not an option.
  const StartupLog ruled = read_log_text("vllm serve Qwen/Qwen3-8B\n---\n");
  EXPECT_EQ(ruled.runs.size(), 1u);
  EXPECT_TRUE(ruled.runs[0].flags.empty());
}

// A DGX Spark's vLLM prints a negative CUDA-graph estimate (spark-vllm-docker PR #200: "-4.74
// GiB total"): free memory before the captures less free memory after, read with its sign.
// sglang PR #19718 launches with the `sglang serve` entry point.
TEST(ReaderClasses, ANegativeGraphEstimateAndSglangServe) {
  const StartupLog spark =
      read_corpus_log("vllm-gb10-x1-qwen3.6-35b-a3b-fp8-negative-cudagraph-estimate");
  EXPECT_DOUBLE_EQ(spark.runs.at(0).first(Quantity::kCudaGraphEstimate)->value, -4.74);
  const StartupLog serve =
      read_corpus_log("sglang-rtxpro6000-server-x1-gpt-oss-120b-swa-pool-sm120");
  const LogRun& r = serve.runs.at(0);
  EXPECT_EQ(r.model, "openai/gpt-oss-120b");
  EXPECT_EQ(r.model_line, 10);
  ASSERT_EQ(r.notes.size(), 4u);
  EXPECT_TRUE(r.notes[2].starts_with("line 15: the sliding-window pool's total restates"))
      << r.notes[2];
}

// A bisect repository's GLM-5.1-FP8 run on 8 x H200 (bbartels/vllm_runai_reproduction, for
// vllm #43163): its memory lines are all TP0's, the other workers name TP1 to TP7 in lines
// explain does not read; the model is named only by a Hugging Face cache path, the GPU only
// by the fused-MoE config file (followed by ",dtype=..."), --enforce-eager only by vLLM's own
// warning.
TEST(ReaderClasses, WhatLinesExplainDoesNotReadStillSay) {
  const StartupLog log = read_corpus_log("vllm-h200-x8-glm-5.1-fp8-v020-runai-eager");
  const LogRun& r = log.runs.at(0);
  const ImpliedScenario s =
      infer_scenario(r, LogEngine::kVllm, "glm.log", test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.gpus_per_node, 8);
  EXPECT_EQ(s.count_note, "rank prefixes up to TP7");
  EXPECT_EQ(r.gpu_name, "NVIDIA_H200");
  EXPECT_EQ(s.gpu.value, "h200-sxm-141gb");
  EXPECT_EQ(r.model_in_cache_path, "zai-org/GLM-5.1-FP8");
  EXPECT_EQ(s.model.value, "zai-org/GLM-5.1-FP8");
  EXPECT_TRUE(s.model.note.starts_with(
      "the Hugging Face cache path on line 12 names zai-org/GLM-5.1-FP8: bundled config "))
      << s.model.note;
  ASSERT_NE(r.flag("--enforce-eager"), nullptr);
  EXPECT_EQ(r.flag("--enforce-eager")->line, 34);
  EXPECT_EQ(repo_id_in_cache_path("/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/"
                                  "snapshots/abc"),
            "Qwen/Qwen3-8B");
  EXPECT_FALSE(repo_id_in_cache_path("/data/mymodels--x").has_value());
}

// vLLM names a worker by every parallel rank it has ("Worker_DP1_TP1_EP3": vLLM's expert
// group spans DP x TP, so EP rank 3 of DP rank 1 and TP rank 1 means TP 2), and each data-
// parallel engine core "EngineCore_DP<rank>"; data parallelism is then a flag the replay
// refuses by name.
TEST(ReaderClasses, DataAndExpertParallelPrefixes) {
  const StartupLog log = read_log_text(
      "(Worker_DP1_TP1_EP3 pid=3585771) INFO 06-01 10:00:00 [gpu_model_runner.py:4566] Model "
      "loading took 60.1 GiB memory and 80.2 seconds\n");
  const ImpliedScenario s = infer_scenario(log.runs.at(0), LogEngine::kVllm, "ep.log",
                                           test_catalogs().gpus, test_catalogs().models);
  EXPECT_EQ(s.gpus_per_node, 4);
  EXPECT_EQ(s.count_note,
            "rank prefixes up to TP1 (EP rank = DP rank x TP size + TP rank), rank prefixes up "
            "to DP1");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].flag, "--tensor-parallel-size");
  EXPECT_EQ(s.args[0].values, std::vector<std::string>{"2"});
  EXPECT_EQ(s.args[1].flag, "--data-parallel-size");
  EXPECT_EQ(s.args[1].values, std::vector<std::string>{"2"});
  EXPECT_EQ(s.args[2].flag, "--enable-expert-parallel");
  // Eight GPUs given (vllm #53013's GB300 box): the EP rank fixes TP at 2, so DP fills them.
  ImpliedScenario eight = s;
  set_gpu_count(eight, 8);
  EXPECT_EQ(eight.gpus_per_node, 8);
  ASSERT_EQ(eight.args.size(), 3u);
  EXPECT_EQ(eight.args[0].flag, "--tensor-parallel-size");
  EXPECT_EQ(eight.args[0].values, std::vector<std::string>{"2"});
  EXPECT_EQ(eight.args[2].flag, "--data-parallel-size");
  EXPECT_EQ(eight.args[2].values, std::vector<std::string>{"4"});
  EXPECT_EQ(eight.args[2].source, "--gpu-count 8 over the TP the EP ranks fix");
  const ImpliedScenario c = implied_by(
      "(EngineCore_DP0 pid=1) INFO 06-01 10:00:00 [kv_cache_utils.py:1305] GPU KV cache size: "
      "100,000 tokens\n"
      "(EngineCore_DP3 pid=4) INFO 06-01 10:00:00 [kv_cache_utils.py:1305] GPU KV cache size: "
      "100,000 tokens\n",
      LogEngine::kVllm);
  EXPECT_EQ(c.gpus_per_node, 4);
  EXPECT_EQ(c.count_note, "rank prefixes up to DP3");
}

// vllm #31903 (DeepSeek-V3.2, TP 8 x PP 4 over Ray): the KV lines, then a worker's "Error
// executing method 'initialize_from_config'" (the KV tensors' allocation): not "no error".
// A traceback's last line is the failure it names; an exception a WARNING quotes is none.
TEST(ReaderClasses, ErrorsAfterTheFigures) {
  const StartupLog log = read_corpus_log("vllm-unknown-x32-deepseek-v3.2-tp8-pp4-ray-init-error");
  const LogRun& r = log.runs.at(0);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kOtherError);
  EXPECT_TRUE(
      r.problems[0].message.starts_with("Error executing method 'initialize_from_config'."));
  const StartupLog traceback = read_log_text(
      "(EngineCore_DP0 pid=5) INFO 06-01 10:00:00 [kv_cache_utils.py:1305] GPU KV cache size: "
      "100,000 tokens\n"
      "(EngineCore_DP0 pid=5) ERROR 06-01 10:00:01 [core.py:708] EngineCore failed to start.\n"
      "(EngineCore_DP0 pid=5) ERROR 06-01 10:00:01 [core.py:708] RuntimeError: CUDA error: an "
      "illegal memory access was encountered\n");
  ASSERT_EQ(traceback.runs.at(0).problems.size(), 2u);
  EXPECT_FALSE(traceback.runs[0].problems[0].exception);
  EXPECT_TRUE(traceback.runs[0].problems[1].exception);
  const StartupLog warned = read_log_text(
      "WARNING 06-01 10:00:00 [utils.py:1] ImportError: No module named 'flash_attn'\n"
      "INFO 06-01 10:00:00 [kv_cache_utils.py:1305] GPU KV cache size: 100,000 tokens\n");
  EXPECT_TRUE(warned.runs.at(0).problems.empty());
  // The exception line alone says nothing of the engine; its frame-less worker name does.
  const StartupLog bare = read_log_text(
      "VllmWorker rank=1 pid=254) torch.OutOfMemoryError: CUDA out of memory. Tried to "
      "allocate 1.00 GiB.\n");
  EXPECT_EQ(bare.engine, LogEngine::kVllm);
}

// What a post puts around the engine's lines and versions: a quote bar ("▎ ", as a chat copies
// it), a release candidate ("0.15.0rc1": that release's rules), a development build
// ("0.20.1.dev1+g...": the rules before it), and flags of the non-default args gpumem does
// not know (said, not dropped).
TEST(ReaderClasses, QuotesCandidatesAndUnknownArguments) {
  const StartupLog quoted = read_log_text(
      "\xe2\x96\x8e (EngineCore_DP0 pid=1) INFO 06-01 10:00:00 [gpu_worker.py:436] Available KV "
      "cache memory: 22.5 GiB\n");
  EXPECT_DOUBLE_EQ(quoted.runs.at(0).first(Quantity::kAvailableKvMemory)->value, 22.5);
  LogRun run;
  run.version = "0.15.0rc1";
  run.version_line = 7;
  VersionChoice v = choose_version(run, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.15.0");
  EXPECT_EQ(v.note, "printed 0.15.0rc1 (line 7), a release candidate of v0.15.0");
  run.version = "0.21.1.dev1+g1a2b3c4";
  v = choose_version(run, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.21.0");
  EXPECT_EQ(v.note,
            "printed 0.21.1.dev1+g1a2b3c4 (line 7), a development build before v0.21.1: the "
            "rules of v0.21.0, the last release below it at which they changed");
  // A development build whose wording is a later release's has that release's rules: the
  // 0.20.2rc1.dev builds of May 2026 already print 0.21.0's CUDA-graph estimate.
  run.version = "0.20.2rc1.dev129+g1acd67a79";
  run.version_clues = {{"0.21.0", "", "'CUDA graph memory profiling is enabled'", 12, false, ""}};
  v = choose_version(run, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.21.0");
  EXPECT_EQ(v.note,
            "printed 0.20.2rc1.dev129+g1acd67a79 (line 7), a development build whose wording is "
            "v0.21.0's ('CUDA graph memory profiling is enabled' (line 12)): the rules of "
            "v0.21.0");
  run.version_clues.clear();
  const StartupLog args = read_log_text(
      "INFO 06-01 10:00:00 [utils.py:233] non-default args: {'model_tag': 'Qwen/Qwen3-8B', "
      "'model': 'Qwen/Qwen3-8B', 'kv_offloading_size': 16.0, 'kv_prefetch_rounds': 2, "
      "'max_num_seqs': 16}\n"
      "INFO 06-01 10:00:01 [kv_cache_utils.py:1305] GPU KV cache size: 100,000 tokens\n");
  EXPECT_EQ(args.runs.at(0).notes,
            std::vector<std::string>{
                "line 1: --kv-prefetch-rounds is not a flag gpumem models; ignored"});
  // The engine-config dump prints values the engine resolved, defaults among them: those of
  // flags gpumem refuses are noted, not read (a user's own setting is in the non-default args).
  const StartupLog resolved = read_log_text(
      "INFO 06-01 10:00:00 [core.py:93] Initializing a V1 LLM engine (v0.23.0) with config: "
      "model='Qwen/Qwen3-8B', decode_context_parallel_size=1, dcp_comm_backend=ag_rs, "
      "kernel_config=KernelConfig(moe_backend='auto'), enforce_eager=False\n");
  EXPECT_EQ(resolved.runs.at(0).flag("--decode-context-parallel-size"), nullptr);
  EXPECT_EQ(resolved.runs.at(0).flag("--kernel-config"), nullptr);
  EXPECT_EQ(resolved.runs.at(0).notes,
            (std::vector<std::string>{
                "line 1: decode_context_parallel_size of the engine config is resolved, not "
                "given; not used as a flag",
                "line 1: dcp_comm_backend of the engine config is resolved, not given; not used "
                "as a flag",
                "line 1: kernel_config of the engine config is resolved, not given; not used as "
                "a flag"}));
  // A flag vLLM has whose memory gpumem does not model is read, for the replay to refuse.
  ASSERT_NE(args.runs.at(0).flag("--kv-offloading-size"), nullptr);
  EXPECT_EQ(args.runs.at(0).flag("--kv-offloading-size")->values, std::vector<std::string>{"16.0"});
}

// vllm issue #44376: the post quotes its offline LLM( call, one argument a line, with the
// model in typographic quotes and 30_000 written with a separator, above the error.
TEST(ReaderClasses, AnOfflineLlmCallsArguments) {
  const StartupLog log = read_corpus_log("vllm-gh200-x2-deepseek-v4-flash-kv-too-small");
  ASSERT_EQ(log.runs.size(), 1u);
  const LogRun& r = log.runs[0];
  EXPECT_EQ(r.model, "DeepSeek-V4-Flash");
  EXPECT_EQ(r.model_line, 7);
  EXPECT_EQ(r.flag("--tensor-parallel-size")->values, std::vector<std::string>{"2"});
  EXPECT_EQ(r.flag("--tensor-parallel-size")->line, 9);
  EXPECT_EQ(r.flag("--enable-expert-parallel")->values, std::vector<std::string>{"true"});
  EXPECT_EQ(r.flag("--max-model-len")->values, std::vector<std::string>{"30000"});
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.95"});
  EXPECT_EQ(r.flag("--kv-cache-dtype")->values, std::vector<std::string>{"fp8"});
  EXPECT_EQ(r.flag("--block-size")->values, std::vector<std::string>{"256"});
  EXPECT_EQ(r.flag("--compilation-config")->values,
            std::vector<std::string>{
                "{ \"cudagraph_mode\": \"FULL_AND_PIECEWISE\", \"custom_ops\": [\"all\"] }"});
  // A switch left False, None and a name the post does not resolve are the engine's defaults.
  const std::string kv =
      "INFO 06-03 14:24:40 [gpu_worker.py:298] Available KV cache memory: 5.44 GiB\n";
  const StartupLog other = read_log_text(
      "llm = vllm.LLM(model=args.model, enforce_eager=False, quantization=None,\n"
      "               max_num_seqs=1_024, swap_space=4)\n" +
      kv);
  ASSERT_EQ(other.runs.size(), 1u);
  EXPECT_FALSE(other.runs[0].model);
  EXPECT_EQ(other.runs[0].flags.size(), 2u);
  EXPECT_EQ(other.runs[0].flag("--max-num-seqs")->values, std::vector<std::string>{"1024"});
  EXPECT_EQ(other.runs[0].flag("--max-num-seqs")->line, 2);
  EXPECT_EQ(other.runs[0].notes,
            std::vector<std::string>{"line 1: model=args.model is a Python expression the log "
                                     "does not resolve; left out"});
  // A call never closed joins at most 64 lines; the line after them is read on its own.
  std::string unclosed = "llm = LLM(max_num_seqs=8,\n";
  for (int i = 0; i < 70; ++i) unclosed += "    # " + std::to_string(i) + "\n";
  const StartupLog cut = read_log_text(unclosed + kv);
  ASSERT_EQ(cut.runs.size(), 1u);
  EXPECT_EQ(cut.runs[0].flag("--max-num-seqs")->values, std::vector<std::string>{"8"});
  EXPECT_TRUE(cut.runs[0].first(Quantity::kAvailableKvMemory));
  // A traceback's call states nothing, and AsyncLLM( is another class.
  for (const std::string call :
       {"    llm = LLM(**engine_args)\n", "engine = AsyncLLM(vllm_config=cfg, log_stats=True)\n"}) {
    const StartupLog none = read_log_text(call + kv);
    ASSERT_EQ(none.runs.size(), 1u) << call;
    EXPECT_TRUE(none.runs[0].flags.empty()) << call;
  }
}

// An accelerator other than an NVIDIA GPU is named, not guessed: an MI300X's MoE config file,
// vllm-ascend's lines; collect_env's "ROCM used to build PyTorch: N/A" on a CUDA machine is no
// clue.
TEST(ReaderClasses, AcceleratorsOtherThanNvidiaGpus) {
  const StartupLog amd = read_log_text(
      "[2025-02-01 10:00:00 TP0] Using configuration from /sgl/configs/E=256,N=256,"
      "device_name=AMD_Instinct_MI300X,dtype=fp8_w8a8.json for MoE layer.\n"
      "[2025-02-01 10:00:05 TP0] Load weight end. type=DeepseekV3ForCausalLM, "
      "dtype=torch.bfloat16, avail mem=100.00 GB, mem usage=80.00 GB.\n");
  const GpuChoice g = choose_gpu(amd.runs.at(0), test_catalogs().gpus);
  EXPECT_EQ(g.name, "");
  EXPECT_EQ(g.note,
            "the log runs on AMD ROCm (line 1), not an NVIDIA GPU: gpumem models NVIDIA GPUs "
            "only (--gpu replays it as if on the one named)");
  const StartupLog ascend = read_log_text(
      "(Worker_DP0_TP6_EP6 pid=2322) INFO 06-24 10:01:36 [worker.py:437] [vllm-ascend] - ACL "
      "graph memory profiling is enabled (default since v0.21.0).\n"
      "(Worker_DP0_TP6_EP6 pid=2322) INFO 06-24 10:01:37 [gpu_worker.py:436] Available KV "
      "cache memory: 20.5 GiB\n");
  EXPECT_EQ(ascend.runs.at(0).platform, "Huawei Ascend NPU");
  const StartupLog cuda = read_log_text(
      "ROCM used to build PyTorch: N/A\n"
      "Is XPU available: False\n"
      "INFO 06-24 10:01:37 [gpu_worker.py:436] Available KV cache memory: 20.5 GiB\n");
  EXPECT_FALSE(cuda.runs.at(0).platform.has_value());
}

// SGLang loads a speculative draft once its target's KV pool is allocated: a weight line after
// the pool is the draft's (sglang #24589's excerpt: Gemma 4's MTP assistant, its 64-token pool),
// unless it comes hours later, when it starts another launch (sglang PR #18263's two runs on
// one GPU, four hours apart, the first cut after its pool).
TEST(ReaderClasses, AWeightLineAfterThePoolIsADraftsOrAnotherLaunch) {
  const StartupLog runs = read_corpus_log("sglang-mi355x-x1-qwen3-30b-a3b-2507-aiter-kv-overalloc");
  ASSERT_EQ(runs.runs.size(), 2u);
  EXPECT_EQ(runs.runs[0].first(Quantity::kKvTokens)->value, 2227073);
  EXPECT_EQ(runs.runs[1].first(Quantity::kFreeAfterWeights)->line, 11);
  EXPECT_EQ(runs.runs[1].first(Quantity::kKvTokens)->value, 1669816);
  const StartupLog draft = read_corpus_log("sglang-rtx3090-x8-gemma4-assistant-draft-tp4-dp2");
  ASSERT_EQ(draft.runs.size(), 1u);
  const LogRun& d = draft.runs[0];
  EXPECT_DOUBLE_EQ(d.first(Quantity::kDraftWeightUsage)->value, 0.29);
  EXPECT_EQ(d.first(Quantity::kKvTokens), nullptr);
  EXPECT_EQ(d.first(Quantity::kFreeAfterWeights), nullptr);
  const StartupLog near = read_log_text(
      "[2026-06-09 09:30:00] Load weight end. elapsed=9.1 s, type=Qwen3ForCausalLM, "
      "dtype=torch.bfloat16, avail mem=60.00 GB, mem usage=15.30 GB.\n"
      "[2026-06-09 09:30:05] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 200000, K "
      "size: 13.73 GB, V size: 13.73 GB\n"
      "[2026-06-09 09:30:06] Load weight end. elapsed=1.2 s, type=LlamaForCausalLM, "
      "dtype=torch.bfloat16, avail mem=32.20 GB, mem usage=0.80 GB.\n");
  ASSERT_EQ(near.runs.size(), 1u);
  EXPECT_DOUBLE_EQ(near.runs[0].first(Quantity::kDraftWeightUsage)->value, 0.80);
  EXPECT_DOUBLE_EQ(near.runs[0].first(Quantity::kWeightUsage)->value, 15.30);
}

}  // namespace
}  // namespace gpumem
