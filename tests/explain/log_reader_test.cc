// The log reader on messy lines: rank and process prefixes, timestamps, colour codes, progress
// redraws, interleaved ranks, argument dumps and launch commands, each with exact values.
#include "explain/log_reader.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "explain/log_line.h"
#include "explain/python_literal.h"
#include "explain/version_choice.h"

namespace gpumem {
namespace {

TEST(LogLine, StripsSglangFrameAndKeepsRank) {
  const std::vector<LogLine> l =
      split_log_lines("[2025-03-08 12:29:13 TP3] Load weight begin. avail mem=21.63 GB");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].message, "Load weight begin. avail mem=21.63 GB");
  EXPECT_EQ(l[0].process, "TP3");
  EXPECT_EQ(l[0].tp, 3);
}

TEST(LogLine, StripsVllmProcessLevelAndSourceLocation) {
  const std::vector<LogLine> l = split_log_lines(
      "(VllmWorker rank=1 pid=42) INFO 12-13 19:54:18 worker.py:243] model weights take 7.48GiB\n"
      "(EngineCore_DP0 pid=3021) INFO 09-23 18:12:34 [kv_cache_utils.py:864] GPU KV cache "
      "size: 451,744 tokens\r\n");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].message, "model weights take 7.48GiB");
  EXPECT_EQ(l[0].tp, 1);
  EXPECT_EQ(l[0].level, "INFO");
  EXPECT_EQ(l[1].message, "GPU KV cache size: 451,744 tokens");
  EXPECT_EQ(l[1].dp, 0);
  EXPECT_FALSE(l[1].tp.has_value());
}

TEST(LogLine, StripsColoursContainerPrefixAndProgressRedraws) {
  const std::vector<LogLine> l = split_log_lines(
      "sglang-1  | \x1b[32m[2025-07-14 05:48:43 TP1]\x1b[0m KV Cache is allocated. #tokens: 38141\n"
      "[36m(VllmWorkerProcess pid=6494)[0m INFO 07-24 14:07:31 model_runner.py:692] Loading "
      "model weights took 57.7520 GB\n"
      "Capturing batches (bs=8 avail_mem=0.90 GB):  50%\rCapturing batches (bs=1 "
      "avail_mem=0.86 GB): 100%");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].message, "KV Cache is allocated. #tokens: 38141");
  EXPECT_EQ(l[0].tp, 1);
  EXPECT_EQ(l[1].message, "Loading model weights took 57.7520 GB");
  EXPECT_EQ(l[1].process, "VllmWorkerProcess pid=6494");
  EXPECT_EQ(l[2].message, "Capturing batches (bs=1 avail_mem=0.86 GB): 100%");
}

// A CI page's copy: an ISO timestamp in brackets before each line and the colour escapes in
// caret notation (vllm PR #33154's Buildkite log); the device-naming budget error of newer
// vLLM ("on device cuda:0 (F/T GiB)") gives its figures.
TEST(LogLine, StripsCaretEscapesAndReadsTheDeviceNamingBudgetError) {
  const std::string text =
      "[2026-01-26T17:25:37Z] ^[[0;36m(EngineCore_DP0 pid=738)^[[0;0m ^[[31mERROR^[[0m "
      "^[[90m01-26 09:25:37^[[0m ^[[90m[core.py:935]^[[0m ValueError: Free memory on device "
      "cuda:0 (1.54/22.05 GiB) on startup is less than desired GPU memory utilization (0.9, "
      "19.84 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
      "processes.\n";
  const std::vector<LogLine> l = split_log_lines(text);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].process, "EngineCore_DP0 pid=738");
  EXPECT_EQ(l[0].message.substr(0, 45), "ValueError: Free memory on device cuda:0 (1.5");
  const Result<StartupLog> log = read_startup_log(text, std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LogRun& r = log->runs.at(0);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAtStartup)->value, 1.54);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kTotalMemory)->value, 22.05);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kRequestedMemory)->value, 19.84);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kBudget);
  EXPECT_EQ(r.problems[0].process, "EngineCore_DP0 pid=738");
}

TEST(LogReader, InterleavedSglangRanksStayOneStartUp) {
  const Result<StartupLog> log = read_startup_log(
      "[2025-03-14 06:56:42 TP1] Load weight end. type=DeepseekV3ForCausalLM, "
      "dtype=torch.bfloat16, avail mem=35.52 GB, mem usage=40.46 GB.\n"
      "[2025-03-14 06:56:46 TP7] Load weight end. type=DeepseekV3ForCausalLM, "
      "dtype=torch.bfloat16, avail mem=36.63 GB, mem usage=40.46 GB.\n"
      "[2025-03-14 06:56:46 TP0] Memory pool end. avail mem=16.08 GB\n"
      "[2025-03-14 06:56:46 TP1] Memory pool end. avail mem=16.07 GB\n"
      "some unrelated line\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->engine, LogEngine::kSglang);
  ASSERT_EQ(log->runs.size(), 1u);
  const LogRun& r = log->runs[0];
  const std::vector<const Observation*> after = r.all(Quantity::kFreeAfterWeights);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_DOUBLE_EQ(after[0]->value, 35.52);
  EXPECT_EQ(after[0]->rank, 1);
  EXPECT_DOUBLE_EQ(after[1]->value, 36.63);
  EXPECT_EQ(after[1]->rank, 7);
  EXPECT_EQ(after[1]->decimals, 2);
  EXPECT_EQ(r.all(Quantity::kFreeAfterPool).size(), 2u);
  EXPECT_EQ(r.architecture, "DeepseekV3ForCausalLM");
}

TEST(LogReader, SglangServerArgsDumpGivesFlagsAndModel) {
  const Result<StartupLog> log = read_startup_log(
      "[2025-03-08 12:29:04] server_args=ServerArgs(model_path='Qwen/QwQ-32B', "
      "mem_fraction_static=0.85, max_running_requests=None, chunked_prefill_size=2048, tp_size=4, "
      "disable_cuda_graph=False, cuda_graph_max_bs=80, cuda_graph_bs=None, port=30000)\n"
      "[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V "
      "size: 1.42 GB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LogRun& r = log->runs.at(0);
  EXPECT_EQ(r.model, "Qwen/QwQ-32B");
  ASSERT_NE(r.flag("--tp-size"), nullptr);
  EXPECT_EQ(r.flag("--tp-size")->values, std::vector<std::string>{"4"});
  EXPECT_EQ(r.flag("--mem-fraction-static")->values, std::vector<std::string>{"0.85"});
  EXPECT_EQ(r.flag("--cuda-graph-max-bs")->values, std::vector<std::string>{"80"});
  EXPECT_EQ(r.flag("--max-running-requests"), nullptr);  // None: unset
  EXPECT_EQ(r.flag("--disable-cuda-graph"), nullptr);    // False: left off
  EXPECT_DOUBLE_EQ(r.first(Quantity::kKvTokens)->value, 46611);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kKSize)->value, 1.42);
}

// The engine line's SpeculativeConfig(...) becomes --speculative-config JSON: a string the
// log holds is escaped, Python's booleans become JSON's, so a quote in a path cannot break
// (or extend) the JSON the replay parses.
TEST(LogReader, VllmSpeculativeConfigOfTheEngineLineIsEscapedJson) {
  const Result<StartupLog> log = read_startup_log(
      "(EngineCore pid=1) INFO 04-29 11:56:51 [core.py:109] Initializing a V1 LLM engine "
      "(v0.20.1) with config: model='Qwen/Qwen3-8B', speculative_config=SpeculativeConfig("
      "method='eagle3', model='/d/a\"b', num_spec_tokens=3, parallel_drafting=True), "
      "tokenizer='Qwen/Qwen3-8B'\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LoggedFlag* spec = log->runs.at(0).flag("--speculative-config");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->values, std::vector<std::string>{
                              "{\"method\": \"eagle3\", \"model\": \"/d/a\\\"b\", "
                              "\"num_speculative_tokens\": 3, \"parallel_drafting\": true}"});
}

TEST(LogReader, VllmNonDefaultArgsAndSummaryLine) {
  const Result<StartupLog> log = read_startup_log(
      "INFO 09-23 18:11:24 [utils.py:328] non-default args: {'max_model_len': 4096, "
      "'disable_log_stats': True, 'model': 'llava-hf/llava-v1.6-mistral-7b-hf'}\n"
      "(EngineCore_DP0 pid=3021) INFO 09-23 18:12:21 [gpu_model_runner.py:2392] Model loading "
      "took 14.0786 GiB and 10.247948 seconds\n"
      "(EngineCore_DP0 pid=3021) INFO 09-23 18:12:39 [gpu_worker.py:391] Free memory on device "
      "(78.66/79.19 GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual "
      "usage is 14.08 GiB for weight, 1.97 GiB for peak activation, 0.07 GiB for non-torch "
      "memory, and 0.67 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
      "`--kv-cache-memory=58333988249` to fit into requested memory, or "
      "`--kv-cache-memory=66273897472` to fully utilize gpu memory. Current kv cache memory in "
      "use is 59212694937 bytes.\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->engine, LogEngine::kVllm);
  const LogRun& r = log->runs.at(0);
  EXPECT_EQ(r.model, "llava-hf/llava-v1.6-mistral-7b-hf");
  EXPECT_EQ(r.flag("--max-model-len")->values, std::vector<std::string>{"4096"});
  // The 4-decimal figure of "Model loading took" is kept over the summary's 2 decimals.
  EXPECT_DOUBLE_EQ(r.first(Quantity::kModelLoading)->value, 14.0786);
  EXPECT_EQ(r.first(Quantity::kModelLoading)->decimals, 4);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kActivationPeak)->value, 1.97);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kNonTorchMemory)->value, 0.07);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kTotalMemory)->value, 79.19);
  // Exact bytes: 59212694937 / 2^30 GiB.
  EXPECT_DOUBLE_EQ(r.first(Quantity::kAvailableKvMemory)->value * 1073741824.0, 59212694937.0);
  EXPECT_EQ(r.first(Quantity::kAvailableKvMemory)->decimals, kExact);
}

// vllm PR #10511 (case 2): the post lists both commands it compares, then each one's output
// under its own command. A command followed by another before any figure printed nothing:
// the first run is the plain command's, TP 1, not the -tp 2 listed just before it.
TEST(LogReader, ALaterCommandBeforeAnyFigureReplacesTheEarlierOnesFlags) {
  const Result<StartupLog> log = read_startup_log(
      "vllm serve meta-llama/Meta-Llama-3-8B\n"
      "vllm serve meta-llama/Meta-Llama-3-8B -tp 2\n"
      "$ vllm serve meta-llama/Meta-Llama-3-8B\n"
      "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n"
      "$ vllm serve meta-llama/Meta-Llama-3-8B -tp 2\n"
      "INFO 12-13 19:55:25 worker.py:243] model weights take   7.48GiB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 2u);
  EXPECT_EQ(log->runs[0].flag("--tensor-parallel-size"), nullptr);
  EXPECT_EQ(log->runs[0].model, "meta-llama/Meta-Llama-3-8B");
  EXPECT_EQ(log->runs[0].model_line, 3);
  ASSERT_NE(log->runs[1].flag("--tensor-parallel-size"), nullptr);
  EXPECT_EQ(log->runs[1].flag("--tensor-parallel-size")->values, std::vector<std::string>{"2"});
}

// vllm issue #23192 (H200, vLLM 0.10.1): the budget error is the last line of a traceback,
// "ValueError: " in front of the message.
TEST(LogReader, VllmBudgetErrorAtTheEndOfATraceback) {
  const Result<StartupLog> log = read_startup_log(
      "(EngineCore_0 pid=1810465) ERROR 09-03 11:03:37 [core.py:712] ValueError: Free memory "
      "on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, "
      "125.75 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
      "processes.\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 1u);
  const LogRun& r = log->runs[0];
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAtStartup)->value, 7.34);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kTotalMemory)->value, 139.72);
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.9"});
  EXPECT_DOUBLE_EQ(r.first(Quantity::kRequestedMemory)->value, 125.75);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kBudget);
  EXPECT_EQ(r.problems[0].line, 1);
}

// The same line cut inside the utilization's parenthesis: what is there is read, and no
// budget is taken from the text after it.
TEST(LogReader, VllmBudgetErrorCutBeforeTheBudget) {
  const Result<StartupLog> log = read_startup_log(
      "ERROR 09-03 11:03:37 [core.py:712] ValueError: Free memory on device (7.34/139.72 GiB) on "
      "startup is less than desired GPU memory utilization (0.9\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 1u);
  const LogRun& r = log->runs[0];
  EXPECT_DOUBLE_EQ(r.first(Quantity::kFreeAtStartup)->value, 7.34);
  EXPECT_EQ(r.flag("--gpu-memory-utilization")->values, std::vector<std::string>{"0.9"});
  EXPECT_EQ(r.first(Quantity::kRequestedMemory), nullptr);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kBudget);
}

TEST(LogReader, LaunchCommandsSplitStartUps) {
  const Result<StartupLog> log = read_startup_log(
      "$ vllm serve meta-llama/Meta-Llama-3-8B\n"
      "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n"
      "$ vllm serve meta-llama/Meta-Llama-3-8B -tp 2 --gpu-memory-utilization=0.95\n"
      "INFO 12-13 19:55:25 worker.py:243] model weights take   7.48GiB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->runs.size(), 2u);
  EXPECT_EQ(log->runs[0].flag("--tensor-parallel-size"), nullptr);
  EXPECT_DOUBLE_EQ(log->runs[0].first(Quantity::kModelLoading)->value, 14.96);
  EXPECT_EQ(log->runs[1].flag("--tensor-parallel-size")->values, std::vector<std::string>{"2"});
  EXPECT_EQ(log->runs[1].flag("--gpu-memory-utilization")->values,
            std::vector<std::string>{"0.95"});
  EXPECT_DOUBLE_EQ(log->runs[1].first(Quantity::kModelLoading)->value, 7.48);
}

TEST(LogReader, ACommandsLastBackslashDoesNotSwallowTheNextLogLine) {
  const Result<StartupLog> log = read_startup_log(
      "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1 --tp 16 \\\n"
      "   --nnodes 2 \\\n"
      "[2025-03-14 06:56:42 TP1] Load weight end. type=DeepseekV3ForCausalLM, "
      "dtype=torch.bfloat16, avail mem=35.52 GB, mem usage=40.46 GB.\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LogRun& r = log->runs.at(0);
  EXPECT_EQ(r.flag("--tp-size")->values, std::vector<std::string>{"16"});  // "--tp": argparse
  EXPECT_EQ(r.flag("--nnodes")->values, std::vector<std::string>{"2"});
  ASSERT_NE(r.first(Quantity::kFreeAfterWeights), nullptr);
  EXPECT_EQ(r.first(Quantity::kFreeAfterWeights)->line, 3);
  EXPECT_EQ(r.first(Quantity::kFreeAfterWeights)->rank, 1);
}

TEST(LogReader, ACommandsValuesAreLocatedOnTheLineThatHoldsThem) {
  const Result<StartupLog> log = read_startup_log(
      "vllm serve meta-llama/Meta-Llama-3-8B \\\n"
      "    --max-model-len 4096 --gpu-memory-utilization=0.95\n"
      "INFO 12-13 19:54:18 worker.py:243] model weights take   14.96GiB\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LoggedFlag* len = log->runs.at(0).flag("--max-model-len");
  ASSERT_NE(len, nullptr);
  EXPECT_EQ(len->line, 2);
  EXPECT_EQ(len->column, 21);
  const LoggedFlag* util = log->runs.at(0).flag("--gpu-memory-utilization");
  EXPECT_EQ(util->line, 2);
  EXPECT_EQ(util->column, 51);  // after the '='
}

TEST(LogReader, VllmKvErrorIsAProblemWithItsNumbers) {
  const Result<StartupLog> log = read_startup_log(
      "(VllmWorkerProcess pid=6496) ERROR 07-24 14:07:40 multiproc_worker_utils.py:226] "
      "ValueError: The model's max seq len (131072) is larger than the maximum number of tokens "
      "that can be stored in KV cache (79392). Try increasing `gpu_memory_utilization` or "
      "decreasing `max_model_len` when initializing the engine.",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LogRun& r = log->runs.at(0);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].kind, ProblemKind::kKvCacheTooSmall);
  EXPECT_EQ(r.problems[0].line, 1);
  EXPECT_DOUBLE_EQ(r.first(Quantity::kKvTokensStorable)->value, 79392);
  EXPECT_EQ(r.flag("--max-model-len")->values, std::vector<std::string>{"131072"});
}

TEST(LogReader, TorchOutOfMemoryGivesWhatWasAskedAndWhatWasFree) {
  const Result<StartupLog> log = read_startup_log(
      "[2025-03-14 06:57:01 TP2] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
      "448.00 MiB. GPU 2 has a total capacity of 23.57 GiB of which 10.00 MiB is free.",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->engine, LogEngine::kSglang);
  const LoggedProblem& p = log->runs.at(0).problems.at(0);
  EXPECT_EQ(p.kind, ProblemKind::kOutOfMemory);
  EXPECT_EQ(p.process, "TP2");
  EXPECT_DOUBLE_EQ(*p.requested_gib, 0.4375);    // 448 / 1024
  EXPECT_DOUBLE_EQ(*p.free_gib, 10.0 / 1024.0);  // 10 MiB
}

TEST(PythonLiteral, KeywordItemsAcrossElisionsListsAndCutOffValues) {
  const std::vector<PyItem> items = parse_keyword_items(
                                        "ServerArgs(... tp_size=4, ... cuda_graph_bs=[1, 2, 4], "
                                        "dtype=torch.bfloat16, name='a, b', flag=True, x==1, "
                                        "kv=None, cut='unterminated")
                                        .items;
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(items[0].key, "tp_size");
  EXPECT_EQ(items[0].value.kind, PyValue::Kind::kInt);
  EXPECT_EQ(items[0].value.text, "4");
  EXPECT_EQ(items[1].value.kind, PyValue::Kind::kList);
  ASSERT_EQ(items[1].value.items.size(), 3u);
  EXPECT_EQ(items[1].value.items[2].text, "4");
  EXPECT_EQ(items[2].value.text, "torch.bfloat16");
  EXPECT_EQ(items[3].value.kind, PyValue::Kind::kString);
  EXPECT_EQ(items[3].value.text, "a, b");
  EXPECT_EQ(items[4].value.kind, PyValue::Kind::kBool);
  EXPECT_EQ(items[5].key, "kv");  // "x==1" is a comparison; the cut string is dropped
  EXPECT_EQ(items[5].value.kind, PyValue::Kind::kNone);
}

TEST(PythonLiteral, DictItems) {
  const std::vector<PyItem> items =
      parse_dict_items(
          "non-default args: {'max_model_len': 4096, 'gpu_memory_utilization': 0.95, "
          "'model': \"x/y\"}")
          .items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].key, "gpu_memory_utilization");
  EXPECT_EQ(items[1].value.kind, PyValue::Kind::kFloat);
  EXPECT_EQ(items[2].value.text, "x/y");
}

TEST(VersionChoice, PrintedCluedAndOlderThanModelled) {
  LogRun printed;
  printed.version = "0.11.0";
  printed.version_line = 3;
  EXPECT_EQ(choose_version(printed, LogEngine::kVllm).version, "0.11.0");
  LogRun clued;  // "Model loading took ... GiB and" (before 0.11.0), 4 decimals (before 0.14.0)
  clued.version_clues = {{"", "0.11.0", "a", 1, false, ""}, {"", "0.14.0", "b", 2, false, ""}};
  EXPECT_EQ(choose_version(clued, LogEngine::kVllm).version, "0.10.2");
  LogRun v0;
  v0.version_clues = {{"", "0.10.1", "V0", 1, false, ""}};
  const VersionChoice old = choose_version(v0, LogEngine::kVllm);
  EXPECT_EQ(old.version, "0.10.1");
  EXPECT_TRUE(old.older_than_modelled);
  EXPECT_EQ(choose_version(LogRun{}, LogEngine::kSglang).version, "0.5.21");
  LogRun sglang_post;
  sglang_post.version = "0.4.6.post5";
  EXPECT_EQ(choose_version(sglang_post, LogEngine::kSglang).version, "0.4.6.post5");
  LogRun sglang_old;
  sglang_old.version = "0.4.5";
  EXPECT_EQ(choose_version(sglang_old, LogEngine::kSglang).version, "0.4.6");
}

// vllm #14452 (V0, two RTX 5090s): the configuration line of an earlier launch says
// max_seq_len=60000, the KV cache's own concurrency line says 50000: the figures were computed
// with 50000, which the replay takes; a configuration stated twice keeps its first value.
TEST(LogReader, TheMaxModelLenTheKvFiguresWereComputedWithWins) {
  const Result<StartupLog> log = read_startup_log(
      "INFO 04-23 14:42:34 [llm_engine.py:243] Initializing a V0 LLM engine "
      "(v0.8.5.dev169+gce17db808.d20250423) with config: model='/models/QwQ-32B-unsloth-bnb-4bit', "
      "max_seq_len=60000, tensor_parallel_size=1, pipeline_parallel_size=2\n"
      "INFO 04-23 14:48:44 [executor_base.py:112] # cuda blocks: 7299, # CPU blocks: 2048\n"
      "INFO 04-23 14:48:44 [executor_base.py:117] Maximum concurrency for 50000 tokens per "
      "request: 2.34x\n",
      std::nullopt);
  ASSERT_TRUE(log.ok()) << log.status().message();
  const LogRun& r = log->runs.at(0);
  ASSERT_NE(r.flag("--max-model-len"), nullptr);
  EXPECT_EQ(r.flag("--max-model-len")->values, std::vector<std::string>{"50000"});
  EXPECT_EQ(r.flag("--max-model-len")->line, 3);
  EXPECT_NE(std::find(r.notes.begin(), r.notes.end(),
                      "line 3 states --max-model-len 50000, line 1 60000; line 3's, which the KV "
                      "cache's figures were computed with, is used"),
            r.notes.end());
}

TEST(LogReader, EngineCanBeForced) {
  // A vLLM line read as SGLang is not recognised: nothing usable.
  const Result<StartupLog> log = read_startup_log(
      "INFO 09-23 18:12:33 [gpu_worker.py:298] Available KV cache memory: 55.15 GiB",
      LogEngine::kSglang);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().message(),
            "nothing usable: no sglang start-up memory line found (gpumem explain reads lines "
            "such as 'Load weight end', 'KV Cache is allocated', 'Model loading took', "
            "'Available KV cache memory', 'GPU KV cache size')");
}

TEST(LogReader, NothingUsableIsAnError) {
  const Result<StartupLog> log = read_startup_log("hello\nworld\n", std::nullopt);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace gpumem
