// Worker processes that name no rank, as real logs print them: Ray's workers under vLLM V0
// (rank 0 in the driver) and V1 (every rank in a worker), Ray's "[repeated Nx across
// cluster]" deduplication, and a wrapper's logger that cut the pid and level out of a V0
// worker's prefix. Each line is verbatim from the public post its test names.
#include <gtest/gtest.h>

#include <string>

#include "explain/implied_scenario.h"
#include "explain/log_line.h"
#include "explain/log_reader.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

StartupLog lines(const std::string& text) {
  Result<StartupLog> log = read_startup_log(text, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  return log.ok() ? log.value() : StartupLog{};
}

ImpliedScenario implied(const LogRun& run) {
  return infer_scenario(run, LogEngine::kVllm, "ray.log", test_catalogs().gpus,
                        test_catalogs().models);
}

// vllm #15598 (V0 over Ray, 2025-03-27): one worker's profile, which Ray says 30 more workers
// printed; with V0's driver that is at least 32 GPUs.
TEST(ReaderWorkers, RayRepeatsCountV0Workers) {
  const StartupLog log = lines(
      "(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO 03-27 10:29:01 [worker.py:267] the "
      "current vLLM instance can use total_gpu_memory (44.53GiB) x gpu_memory_utilization "
      "(0.98) = 43.64GiB [repeated 30x across cluster]\n"
      "(RayWorkerWrapper pid=1463574, ip=192.168.10.60) INFO 03-27 10:29:01 [worker.py:267] "
      "model weights take 20.64GiB; non_torch_memory takes 0.28GiB; PyTorch activation peak "
      "memory takes 1.52GiB; the rest of the memory reserved for KV Cache is 21.20GiB. \n");
  ASSERT_EQ(log.runs.size(), 1u);
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.unranked_workers,
            std::vector<std::string>{"RayWorkerWrapper pid=1463574, ip=192.168.10.60"});
  EXPECT_EQ(r.cluster_repeats, 30);
  EXPECT_FALSE(r.workers_hold_every_rank);
  const std::vector<const Observation*> kv = r.all(Quantity::kAvailableKvMemory);
  ASSERT_EQ(kv.size(), 1u);
  EXPECT_DOUBLE_EQ(kv[0]->value, 21.20);
  EXPECT_EQ(kv[0]->rank, 1);
  const ImpliedScenario s = implied(r);
  EXPECT_EQ(s.gpus_per_node, 32);
  EXPECT_EQ(s.count_note,
            "vLLM V0's worker processes name no rank: 1 beside the driver ('RayWorkerWrapper "
            "pid=1463574, ip=192.168.10.60'), and Ray repeated a worker's line for 30 more "
            "('[repeated 30x across cluster]'): 31 workers, so at least 32 GPUs, taken as TP 32");
}

// vllm #14452 (V0, 0.8.5.dev, two RTX 5090): --pipeline-parallel-size 2 and one worker beside
// the driver are the two stages, TP 1 (was read as TP 2 x PP 2, four GPUs).
TEST(ReaderWorkers, V0WorkersFillThePipelineFirst) {
  const StartupLog log = lines(
      "root@470dedf7290d:/models# python3 -m vllm.entrypoints.openai.api_server   --model "
      "/models/QwQ-32B-unsloth-bnb-4bit   --pipeline-parallel-size 2   --trust-remote-code   "
      "--gpu-memory-utilization 0.85   --max-model-len 60000\n"
      "INFO 04-23 14:48:44 [worker.py:287] model weights take 10.80GiB; non_torch_memory takes "
      "0.33GiB; PyTorch activation peak memory takes 1.01GiB; the rest of the memory reserved "
      "for KV Cache is 14.52GiB.\n"
      "(VllmWorkerProcess pid=12897) INFO 04-23 14:48:44 [worker.py:287] model weights take "
      "10.30GiB; non_torch_memory takes 0.33GiB; PyTorch activation peak memory takes 1.77GiB; "
      "the rest of the memory reserved for KV Cache is 14.26GiB.\n");
  ASSERT_EQ(log.runs.size(), 1u);
  const ImpliedScenario s = implied(log.runs.at(0));
  EXPECT_EQ(s.gpus_per_node, 2);
  EXPECT_FALSE(s.tp_from_prefixes);
  EXPECT_EQ(s.count_note,
            "vLLM V0's worker processes name no rank: 1 beside the driver ('VllmWorkerProcess "
            "pid=12897'), so at least 2 GPUs, taken as TP 1 x PP 2 x DP 1 (the logged flags)");
}

// MiniMax-M2.5 #30 (V1 over Ray on four hosts, 2026-04-01): every rank is a Ray worker inside
// the engine core, so the four workers are the four GPUs the lines show, the first rank 0.
TEST(ReaderWorkers, V1RayWorkersHoldEveryRank) {
  const StartupLog log = lines(
      "(EngineCore pid=89247) (RayWorkerWrapper pid=89561) INFO 04-01 11:24:08 "
      "[gpu_model_runner.py:4566] Model loading took 13.2 GiB memory and 82.628035 seconds\n"
      "(EngineCore pid=89247) (RayWorkerWrapper pid=164889, ip=172.20.4.203) INFO 04-01 "
      "11:25:14 [gpu_model_runner.py:4566] Model loading took 13.2 GiB memory and 148.493862 "
      "seconds\n"
      "(EngineCore pid=89247) (RayWorkerWrapper pid=165186, ip=172.20.4.201) INFO 04-01 "
      "11:25:18 [default_loader.py:384] Loading weights took 151.79 seconds\n"
      "(EngineCore pid=89247) (RayWorkerWrapper pid=75390, ip=172.20.4.202) INFO 04-01 11:25:20 "
      "[default_loader.py:384] Loading weights took 154.14 seconds\n");
  ASSERT_EQ(log.runs.size(), 1u);
  const LogRun& r = log.runs.at(0);
  EXPECT_EQ(r.unranked_workers.size(), 4u);
  EXPECT_TRUE(r.workers_hold_every_rank);
  const std::vector<const Observation*> weights = r.all(Quantity::kModelLoading);
  ASSERT_EQ(weights.size(), 2u);
  EXPECT_EQ(weights[0]->rank, 0);
  EXPECT_EQ(weights[1]->rank, 1);
  const ImpliedScenario s = implied(r);
  EXPECT_EQ(s.gpus_per_node, 4);
  EXPECT_EQ(s.count_note,
            "vLLM's Ray workers name no rank, and V1's engine core runs every rank in one: 4 "
            "('RayWorkerWrapper pid=89561'), so at least 4 GPUs, taken as TP 4");
}

// ai-dynamo/dynamo #787 (2025-04-23): Dynamo's logger re-frames vLLM V0's worker lines and
// cuts "pid=N) INFO" out of them; the process, time and source are still there.
TEST(ReaderWorkers, AWrapperThatCutThePidAndLevel) {
  const std::vector<LogLine> split = split_log_lines(
      "2025-04-23T03:33:57.400Z  INFO dynamo_engine_vllm::worker: VLLM: (VllmWorkerProcess "
      "04-23 11:33:57 worker.py:270] model weights take 8.50GiB; non_torch_memory takes "
      "2.10GiB; PyTorch activation peak memory takes 0.68GiB; the rest of the memory reserved "
      "for KV Cache is 59.96GiB.");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0].process, "VllmWorkerProcess");
  EXPECT_EQ(split[0].time, "04-23 11:33:57");
  EXPECT_EQ(split[0].source, "worker.py:270");
  EXPECT_EQ(split[0].date, "2025-04-23");
  EXPECT_TRUE(split[0].message.starts_with("model weights take 8.50GiB;"));
  const StartupLog log = lines(
      "2025-04-23T03:32:58.533Z  INFO dynamo_engine_vllm::worker: VLLM: (VllmWorkerProcess "
      "04-23 11:32:58 model_runner.py:1115] Loading model weights took 8.4974 GB\n"
      "2025-04-23T03:33:57.400Z  INFO dynamo_engine_vllm::worker: VLLM: (VllmWorkerProcess "
      "04-23 11:33:57 worker.py:270] the current vLLM instance can use total_gpu_memory "
      "(79.15GiB) x gpu_memory_utilization (0.90) = 71.24GiB\n");
  const LogRun& r = log.runs.at(0);
  ASSERT_EQ(r.all(Quantity::kModelLoading).size(), 1u);
  EXPECT_DOUBLE_EQ(r.all(Quantity::kModelLoading)[0]->value, 8.4974);
  ASSERT_EQ(r.all(Quantity::kTotalMemory).size(), 1u);
  EXPECT_DOUBLE_EQ(r.all(Quantity::kTotalMemory)[0]->value, 79.15);
  // A parenthesis before a sentence is not a frame.
  EXPECT_EQ(split_log_lines("(see 04-23 11:33:57 notes.py:1] later)")[0].process, "");
}

// Ray's suffix is taken off the message only in its own form.
TEST(ReaderWorkers, ClusterRepeatsSuffix) {
  EXPECT_EQ(split_log_lines("(RayWorkerWrapper pid=5) INFO 03-27 10:29:01 [worker.py:267] x "
                            "[repeated 7x across cluster]")[0]
                .cluster_repeats,
            7);
  const LogLine odd = split_log_lines(
      "(RayWorkerWrapper pid=5) INFO 03-27 10:29:01 [worker.py:267] x [repeated 0x across "
      "cluster]")[0];
  EXPECT_EQ(odd.cluster_repeats, 0);
  EXPECT_EQ(odd.message, "x [repeated 0x across cluster]");
}

}  // namespace
}  // namespace gpumem
