// Which release a log that prints none ran (explain/version_choice.h): the wording of its
// lines, the flags it logs, its date (full, or vLLM's month and day without a year), the image
// tag a launch names, and a release the user gives. Real public logs of the corpus where one
// shows it, and lines written in the engine's own form where none does.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "explain/log_reader.h"
#include "explain/version_choice.h"
#include "tests/explain/corpus_reading.h"

namespace gpumem {
namespace {

// Sets GPUMEM_TODAY for one test and puts back what was there.
class TodayIs {
 public:
  explicit TodayIs(const char* day) {
    if (const char* before = std::getenv("GPUMEM_TODAY")) before_ = before;
    setenv("GPUMEM_TODAY", day, 1);
  }
  ~TodayIs() {
    if (before_) {
      setenv("GPUMEM_TODAY", before_->c_str(), 1);
    } else {
      unsetenv("GPUMEM_TODAY");
    }
  }
  TodayIs(const TodayIs&) = delete;
  TodayIs& operator=(const TodayIs&) = delete;

 private:
  std::optional<std::string> before_;
};

TEST(LogDating, VersionFromWordingAndDate) {
  // SGLang frames carry the date: 2025-10-16 is before v0.5.4; no "elapsed=" is before 0.5.7:
  // the rules of v0.5.3.
  const StartupLog llama_log = read_corpus_log("sglang-h200-x8-llama3.3-70b-piecewise-cudagraph");
  const LogRun& llama = llama_log.runs.at(0);
  const VersionChoice old = choose_version(llama, LogEngine::kSglang);
  EXPECT_EQ(old.version, "0.5.3");
  EXPECT_FALSE(old.older_than_modelled);
  EXPECT_NE(old.note.find("dated 2025-10-16, before v0.5.4 was published (2025-10-24)"),
            std::string::npos)
      << old.note;
  // vLLM's banner prints its version.
  const StartupLog banner_log = read_corpus_log("vllm-a100-x1-gpt-oss-20b-128k-blog");
  const LogRun& banner = banner_log.runs.at(0);
  EXPECT_EQ(banner.version, "0.19.0");
  // The newest accounting ("consumed memory", 0.22.0 on) bounds it from below only; its
  // vLLM frames' day, 08-07 (2026 at the latest), is before v0.27.1 was published, whose
  // source lines it prints: a development build of 0.27.1, which has 0.26.0's rules.
  const StartupLog ampere = read_corpus_log("vllm-48gb-ampere-x4-deepseek-v4-flash-sm8x-kv-hint");
  const VersionChoice dev = choose_version(ampere.runs.at(0), LogEngine::kVllm);
  EXPECT_EQ(dev.version, "0.26.0");
  EXPECT_FALSE(dev.newer_than_modelled);
  EXPECT_NE(dev.note.find("v0.27.1's public logs print its source lines there, so a development "
                          "build of it before it was published: the rules of v0.26.0"),
            std::string::npos)
      << dev.note;
  // A day before v0.5.21 was published the log ran 0.5.20 or older; after it, no bound.
  ASSERT_TRUE(date_clue(LogEngine::kSglang, "2026-09-30", 1).has_value());
  EXPECT_EQ(date_clue(LogEngine::kSglang, "2026-09-30", 1)->before, "0.5.21");
  EXPECT_EQ(date_clue(LogEngine::kSglang, "2026-10-02", 1), std::nullopt);
}

// A flag a later release dropped dates the log before it: vLLM's non-default arguments with
// max_seq_len_to_capture (removed for 0.11.0) are 0.10.x's, and the flag itself changes nothing
// gpumem replays.
TEST(LogDating, ADroppedFlagDatesTheLog) {
  const StartupLog log = read_log_text(
      "INFO 09-01 10:00:00 [api_server.py:1000] non-default args: {'model': 'Qwen/Qwen3-8B', "
      "'max_seq_len_to_capture': 16384, 'max_model_len': 16384}\n"
      "INFO 09-01 10:00:40 [gpu_worker.py:300] Available KV cache memory: 104.50 GiB\n");
  const LogRun& r = log.runs.at(0);
  ASSERT_NE(r.flag("--max-seq-len-to-capture"), nullptr);
  const VersionChoice v = choose_version(r, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.10.2");
  EXPECT_NE(v.note.find("'--max-seq-len-to-capture' (removed in 0.11.0) (line 1)"),
            std::string::npos)
      << v.note;
}

// ... and a flag a later release added dates it from that release: the queue limits came in
// vLLM 0.29.0, while the lines' day (09-01, 2026 at the latest) is before 0.29.0 was published:
// a development build of 0.29.0, replayed with its rules, and the note says why.
TEST(LogDating, AnAddedFlagDatesTheLog) {
  const StartupLog log = read_log_text(
      "INFO 09-01 10:00:00 [api_server.py:1000] non-default args: {'model': 'Qwen/Qwen3-8B', "
      "'max_num_queued_reqs': 64, 'max_model_len': 16384}\n"
      "INFO 09-01 10:00:40 [gpu_worker.py:300] Available KV cache memory: 104.50 GiB\n");
  const LogRun& r = log.runs.at(0);
  ASSERT_NE(r.flag("--max-num-queued-reqs"), nullptr);
  const VersionChoice v = choose_version(r, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.29.0");
  EXPECT_FALSE(v.newer_than_modelled);
  EXPECT_NE(v.note.find("'--max-num-queued-reqs' (added in 0.29.0) (line 1)"), std::string::npos)
      << v.note;
  EXPECT_NE(v.note.find("; a development build before v0.29.0 was published, with its wording"),
            std::string::npos)
      << v.note;
}

// "In v0.19, CUDA graph memory profiling will be enabled by default ..." is printed while the
// estimate exists and is off (v0.17.0 to v0.20.x): it dates the log and states the
// utilization (vllm PR #39559's log, 0.19.1rc1 per its thread).
TEST(LogDating, TheEstimateHintOfV017ToV020) {
  const StartupLog log = read_corpus_log("vllm-unknown-x1-qwen3.5-gguf-v019-kv-override-pr39559");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.9000"});
  // The hint allows 0.17.0 to 0.20.x; the source lines of its KV lines are where 0.19.0's
  // public logs print them (kv_cache_utils.py:1319, tests/data/vllm-source-lines/seen.tsv), and
  // 0.20.0's elsewhere: the rules of 0.19.0.
  const VersionChoice v = choose_version(r, LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.19.0");
  EXPECT_NE(v.note.find("'In v0.19, CUDA graph memory profiling will be enabled' (line 11)"),
            std::string::npos)
      << v.note;
  EXPECT_NE(v.note.find("'GPU KV cache size' at kv_cache_utils.py:1319, where vLLM 0.19.0 logs it"),
            std::string::npos)
      << v.note;
}

// A docker run of the engine's own image: the tag names the release where the log prints
// none; a printed version line replaces it; a tag that names none ("latest") says nothing.
TEST(LogDating, TheImageTagNamesTheRelease) {
  const std::string figures =
      "INFO 08-20 10:00:05 [gpu_model_runner.py:2653] Model loading took 15.27 GiB and 3.1 "
      "seconds\n";
  const StartupLog vllm = read_log_text(
      "$ docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.10.1 --model Qwen/Qwen3-8B\n" +
      figures);
  ASSERT_EQ(vllm.runs.size(), 1u);
  const VersionChoice v = choose_version(vllm.runs[0], LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.10.1");
  EXPECT_EQ(v.note, "named by the image tag (line 1)");
  const StartupLog printed = read_log_text(
      "$ docker run --gpus all vllm/vllm-openai:v0.10.1 --model Qwen/Qwen3-8B\n"
      "INFO 08-20 10:00:01 [api_server.py:1805] vLLM API server version 0.11.0\n" +
      figures);
  EXPECT_EQ(choose_version(printed.runs.at(0), LogEngine::kVllm).note, "printed (line 2)");
  const StartupLog sglang = read_log_text(
      "$ docker run --gpus all lmsysorg/sglang:v0.5.4.post1-cu126 python3 -m "
      "sglang.launch_server --model-path Qwen/Qwen3-8B\n"
      "[2025-11-02 10:00:00] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
      "avail mem=62.75 GB, mem usage=15.28 GB.\n");
  ASSERT_EQ(sglang.runs.size(), 1u);
  EXPECT_EQ(choose_version(sglang.runs[0], LogEngine::kSglang).version, "0.5.4.post1");
  const StartupLog latest = read_log_text(
      "$ docker run --gpus all vllm/vllm-openai:latest --model Qwen/Qwen3-8B\n" + figures);
  EXPECT_NE(choose_version(latest.runs.at(0), LogEngine::kVllm).note.find("not printed"),
            std::string::npos);
}

// sglang #30609: seven ranks load a NextN draft ("type=DeepseekV3ForCausalLMNextN") on
// 2026-07-14, with the "quant=" wording of v0.5.19 (published 2026-09-06): the weights are
// the draft's, and the release is a development build of v0.5.19, not the newest one.
TEST(LogDating, ADraftsWeightLineAndADevelopmentBuild) {
  const StartupLog log = read_corpus_log("sglang-unknown-x8-glm-5.2-fp8-pd-nextn-draft-load");
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.all(Quantity::kDraftWeightUsage).size(), 7u);
  EXPECT_EQ(r.first(Quantity::kWeightUsage), nullptr);
  EXPECT_EQ(r.first(Quantity::kFreeAfterWeights), nullptr);
  const VersionChoice v = choose_version(r, LogEngine::kSglang);
  EXPECT_EQ(v.version, "0.5.19");
  EXPECT_FALSE(v.newer_than_modelled);
  EXPECT_NE(v.note.find("; a development build before v0.5.19 was published, with its wording"),
            std::string::npos)
      << v.note;
}

TEST(LogDating, AGivenReleaseMustBeOneTheEngineWrites) {
  EXPECT_EQ(given_release_error(LogEngine::kSglang, "0.4.6.post1"), "");
  EXPECT_EQ(given_release_error(LogEngine::kVllm, "0.20.1.dev1+g1a2b3c4"), "");
  EXPECT_EQ(given_release_error(LogEngine::kVllm, "0.10.1.1"), "");
  EXPECT_EQ(given_release_error(LogEngine::kSglang, "0.10.1.1"),
            "'0.10.1.1' is not a release number SGLang writes (as 0.5.21)");
  EXPECT_EQ(given_release_error(LogEngine::kSglang, "0.5\n"),
            "\"0.5\\n\" is not a release number (as 0.5.9, 0.4.6.post1, 0.11.0rc1 or "
            "0.20.1.dev1+g1a2b3c4)");
}

TEST(LogDating, TheLatestSuchDayUpToTodayBoundsTheRelease) {
  const std::optional<VersionClue> august =
      yearless_date_clue(LogEngine::kVllm, "08-20", 5, "2026-12-07");
  ASSERT_TRUE(august.has_value());
  EXPECT_EQ(august->before, "0.29.0");
  EXPECT_EQ(august->from, "");
  EXPECT_TRUE(august->from_date);
  EXPECT_EQ(august->line, 5);
  EXPECT_EQ(august->why,
            "dated 08-20 with no year (2026-08-20 at the latest, as of 2026-12-07), before "
            "v0.29.0 was published (2026-09-10)");
  // Later in the year than today: last year's.
  EXPECT_EQ(yearless_date_clue(LogEngine::kVllm, "12-20", 1, "2026-12-07")->before, "0.14.0");
  // 29 February: the last leap year's.
  EXPECT_EQ(yearless_date_clue(LogEngine::kVllm, "02-29", 1, "2026-12-07")->before, "0.7.2");
  // After the last listed release, and not a date at all: no clue.
  EXPECT_EQ(yearless_date_clue(LogEngine::kVllm, "10-01", 1, "2026-12-07"), std::nullopt);
  EXPECT_EQ(yearless_date_clue(LogEngine::kVllm, "13-01", 1, "2026-12-07"), std::nullopt);
  EXPECT_EQ(yearless_date_clue(LogEngine::kVllm, "8-20 ", 1, "2026-12-07"), std::nullopt);
}

TEST(LogDating, TodayIsGivenOrTheClockButNeverBeforeTheReleaseTables) {
  TodayIs today("2027-03-01");
  EXPECT_EQ(dating_today(), "2027-03-01");
  setenv("GPUMEM_TODAY", "2025-01-01", 1);
  EXPECT_EQ(dating_today(), "2026-12-07");
  setenv("GPUMEM_TODAY", "yesterday", 1);
  EXPECT_GE(dating_today(), "2026-12-07");
  EXPECT_EQ(dating_today().size(), 10u);
}

// A June excerpt without a version (the worker line of a DiffusionGemma TP 2 report, stored
// file id 55592757904 of the code index): V2's wording says 0.22 or later, its date (2026-06-19
// at the latest) before 0.24.0: the rules of 0.23.0, not of the newest release.
TEST(LogDating, AJuneExcerptRunsAJuneRelease) {
  TodayIs today("2026-12-07");
  Result<StartupLog> log = read_startup_log(
      "(Worker pid=50) INFO 06-19 05:51:18 [gpu_worker.py:303] Using V2 Model Runner\n"
      "(Worker_TP0 pid=50) INFO 06-19 05:51:36 [model_runner.py:290] Model loading took 14.59 "
      "GiB and 17.632303 seconds\n"
      "(Worker_TP0 pid=50) INFO 06-19 05:51:39 [gpu_worker.py:480] Available KV cache memory: "
      "4.36 GiB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 1u);
  const VersionChoice v = choose_version(log->runs[0], LogEngine::kVllm);
  EXPECT_EQ(v.version, "0.23.0");
  EXPECT_NE(v.note.find("dated 06-19 with no year (2026-06-19 at the latest, as of 2026-12-07), "
                        "before v0.24.0 was published (2026-07-01) (line 2)"),
            std::string::npos)
      << v.note;
}

}  // namespace
}  // namespace gpumem
