// The vLLM logs of the public corpus (tests/data/engine-logs/vllm-*.log), each as explain
// reads it: every figure with its line, the rank whose prefix printed it, its value as
// printed and its unit; every failure with what it asked and what was free. Each rendering
// was reviewed against its log (explain/startup_log.h names the line each figure comes from).
#include <gtest/gtest.h>

#include "tests/explain/corpus_reading.h"

namespace gpumem {
namespace {

const std::vector<CorpusLog>& logs() {
  static const std::vector<CorpusLog> kLogs = {
      {"vllm-48gb-x2-r1-distill-llama-8b-v091-free-memory-check",
       "start-up 1\n"
       "21 -: free at start-up 31.44 GiB\n"
       "21 -: total GPU memory 47.38 GiB\n"
       "21 -: budget (total x utilization) 45.01 GiB\n"
       "21 failed: free memory below the budget\n"
       "22 failed: error\n"},
      {"vllm-l40s-x1-nemotron-nano-9b-v2-v0101-mamba-alloc-oom",
       "start-up 1\n"
       "9 -: model weights 16.5557 GiB\n"
       "10 -: total GPU memory 44.40 GiB\n"
       "10 failed: out of memory, asked 33.7500 GiB, free 26.8800 GiB\n"},
      {"vllm-l40s-x1-nemotron-super-49b-gptq-v083-v0-graph-capture",
       "start-up 1\n"
       "10 -: CUDA graphs took 3.34 GiB\n"},
      {"vllm-unknown-x1-qwen3.5-arch-nvfp4-kv-prototype-1m-ctx",
       "start-up 1\n"
       "23 -: KV cache tokens 1823372\n"
       "24 -: maximum concurrency 1.74x\n"},
      {"vllm-22gb-x1-deepseek-v2-lite-chat-cpu-offload-kv-too-small",
       "start-up 1\n"
       "7 -: KV cache one request needs 0.95 GiB\n"
       "7 -: available KV cache memory 0.93 GiB\n"
       "7 failed: KV cache too small\n"},
      {"vllm-24gb-x1-gemma-3-27b-it-int4-awq-v083-v0-kv-too-small-graph-oom",
       "start-up 1\n"
       "15 -: model weights 17.6110 GiB\n"
       "17 -: KV tokens storable 3584\n"
       "17 failed: KV cache too small\n"
       "start-up 2\n"
       "26 -: total GPU memory 21.99 GiB\n"
       "26 -: budget (total x utilization) 21.55 GiB\n"
       "30 failed: out of memory\n"},
      {"vllm-24gb-x1-qwen2.5-vl-7b-awq-v072-kv-alloc-oom",
       "start-up 1\n"
       "18 -: total GPU memory 23.69 GiB\n"
       "18 failed: out of memory, asked 0.4082 GiB, free 0.1887 GiB\n"},
      {"vllm-24gb-x1-qwen3-8b-lmcache-cpu-offload-quickstart",
       "start-up 1\n"
       "7 -: CUDA graph estimate 0.52 GiB\n"
       "8 -: available KV cache memory 6.37 GiB\n"
       "9 -: utilization less the graph estimate 0.9543\n"
       "10 -: KV cache tokens 46368\n"
       "11 -: maximum concurrency 2.83x\n"},
      {"vllm-48gb-ampere-x4-deepseek-v4-flash-sm8x-kv-hint",
       "start-up 1\n"
       "9 rank 0: CUDA graphs took 2.51 GiB\n"
       "10 rank 0: CUDA graph estimate 2.44 GiB\n"
       "11 rank 0: free at start-up 46.93 GiB\n"
       "11 rank 0: total GPU memory 47.4 GiB\n"
       "11 rank 0: budget (total x utilization) 45.03 GiB\n"
       "11 rank 0: consumed memory (weights + non-torch) 40.33 GiB\n"
       "11 rank 0: activation peak 3.12 GiB\n"
       "11 rank 0: available KV cache memory 1.58 GiB\n"},
      {"vllm-48gb-x1-qwen2.5-72b-gptq-int4-v064-kv-too-small",
       "start-up 1\n"
       "6 -: model weights 38.5260 GiB\n"
       "7 -: total GPU memory 47.74 GiB\n"
       "7 -: torch peak (weights + activations) 40.87 GiB\n"
       "7 -: non-torch memory 4.09 GiB\n"
       "7 -: available KV cache memory 0.39 GiB\n"
       "8 -: GPU blocks 80\n"
       "9 -: maximum concurrency 0.16x\n"
       "10 -: KV tokens storable 1280\n"
       "10 failed: KV cache too small\n"},
      {"vllm-80gb-x1-llama3.1-70b-w8a8-v1-early-gpu-blocks",
       "start-up 1\n"
       "9 -: model weights 67.7229 GiB\n"
       "15 -: GPU blocks 1381\n"
       "16 -: maximum concurrency 10.79x\n"},
      {"vllm-80gb-x4-qwen3.5-35b-a3b-dflash-kv-memory-hint",
       "start-up 1\n"
       "6 rank 1: free at start-up 77.78 GiB\n"
       "6 rank 1: total GPU memory 79.33 GiB\n"
       "6 rank 1: budget (total x utilization) 67.43 GiB\n"
       "6 rank 1: model weights 16.92 GiB\n"
       "6 rank 1: activation peak 5.66 GiB\n"
       "6 rank 1: non-torch memory 0.13 GiB\n"
       "6 rank 1: CUDA graphs took 1.34 GiB\n"
       "6 rank 1: available KV cache memory 43.4 GiB\n"
       "7 rank 2: CUDA graphs took 1.34 GiB\n"
       "7 rank 2: CUDA graph estimate 1.32 GiB\n"
       "8 rank 2: free at start-up 77.78 GiB\n"
       "8 rank 2: total GPU memory 79.33 GiB\n"
       "8 rank 2: budget (total x utilization) 67.43 GiB\n"
       "8 rank 2: model weights 16.92 GiB\n"
       "8 rank 2: activation peak 5.66 GiB\n"
       "8 rank 2: non-torch memory 0.13 GiB\n"
       "8 rank 2: available KV cache memory 43.4 GiB\n"},
      {"vllm-a100-40gb-x4-qwen2.5-vl-72b-v0-profiling-tiny-kv",
       "start-up 1\n"
       "21 rank 1: total GPU memory 39.38 GiB\n"
       "21 rank 1: budget (total x utilization) 37.41 GiB\n"
       "22 rank 1: model weights 34.43 GiB\n"
       "22 rank 1: non-torch memory 0.34 GiB\n"
       "22 rank 1: activation peak 2.51 GiB\n"
       "22 rank 1: available KV cache memory 0.13 GiB\n"
       "24 -: total GPU memory 39.38 GiB\n"
       "24 -: budget (total x utilization) 37.41 GiB\n"
       "25 -: model weights 34.43 GiB\n"
       "25 -: non-torch memory 0.43 GiB\n"
       "25 -: activation peak 2.51 GiB\n"
       "25 -: available KV cache memory 0.04 GiB\n"
       "27 rank 2: total GPU memory 39.38 GiB\n"
       "27 rank 2: budget (total x utilization) 37.41 GiB\n"
       "28 rank 2: model weights 34.43 GiB\n"
       "28 rank 2: non-torch memory 0.38 GiB\n"
       "28 rank 2: activation peak 2.51 GiB\n"
       "28 rank 2: available KV cache memory 0.09 GiB\n"},
      {"vllm-a100-40gb-x8-deepseek-v4-flash-0731-backport",
       "start-up 1\n"
       "13 rank 3: model weights 19.82 GiB\n"
       "15 rank 6: model weights 19.82 GiB\n"
       "17 rank 1: model weights 19.82 GiB\n"},
      {"vllm-a100-80gb-x1-qwen2.5-vl-7b-video-profile-no-kv-memory",
       "start-up 1\n"
       "42 -: model weights 15.67 GiB\n"
       "43 -: encoder budget (tokens) 114688\n"
       "43 -: encoder profile items 1\n"
       "52 -: CUDA graph estimate 0.53 GiB\n"
       "53 -: available KV cache memory -14.28 GiB\n"
       "54 -: utilization less the graph estimate 0.2133\n"
       "55 failed: error\n"
       "57 failed: no KV cache memory\n"
       "59 failed: error\n"},
      {"vllm-a100-x1-gemma-4-26b-a4b-128k-blog",
       "start-up 1\n"
       "21 -: model weights 48.5 GiB\n"
       "22 -: available KV cache memory 21.5 GiB\n"},
      {"vllm-a100-x1-gpt-oss-20b-128k-blog",
       "start-up 1\n"
       "9 -: model weights 13.72 GiB\n"
       "10 -: available KV cache memory 36.56 GiB\n"},
      {"vllm-a40-x1-lvllm-moe-int4-kv-half",
       "start-up 1\n"
       "7 -: model weights 11.55 GiB\n"
       "12 -: available KV cache memory 12.57 GiB\n"
       "13 -: KV cache tokens 53136\n"},
      {"vllm-a6000-x1-qwen3.8-27b-nvfp4-club3090",
       "start-up 1\n"
       "9 -: model weights 19.75 GiB\n"
       "10 -: attention block size (tokens) 1568\n"
       "12 -: encoder budget (tokens) 16384\n"
       "12 -: encoder profile items 1\n"},
      {"vllm-a800-x1-qwen3-vl-30b-a3b-engine-fail",
       "start-up 1\n"
       "9 -: available KV cache memory 13.69 GiB\n"
       "10 failed: error\n"},
      {"vllm-a800-x1-qwen3.6-35b-a3b-fp8-dflash-kv",
       "start-up 1\n"
       "26 -: CUDA graph estimate 6.24 GiB\n"
       "27 -: available KV cache memory 5.16 GiB\n"
       "28 -: utilization less the graph estimate 0.5413\n"},
      {"vllm-gb10-x1-qwen3.6-35b-a3b-fp8-negative-cudagraph-estimate",
       "start-up 1\n"
       "20 -: CUDA graph estimate -4.74 GiB\n"
       "21 -: available KV cache memory 52.66 GiB\n"
       "23 -: KV cache tokens 1253392\n"},
      {"vllm-gb10-x2-glm-5.3-flash-exl3-dgx-spark-kv",
       "start-up 1\n"
       "8 rank 0: available KV cache memory 21.54 GiB\n"
       "9 -: KV cache tokens 1942028\n"
       "9 -: maximum concurrency 1.94x\n"},
      {"vllm-gh200-x2-deepseek-v4-flash-kv-too-small",
       "start-up 1\n"
       "22 -: KV cache one request needs 6.66 GiB\n"
       "22 -: available KV cache memory 5.44 GiB\n"
       "22 -: KV tokens storable 13528\n"
       "22 failed: KV cache too small\n"},
      {"vllm-h100-x1-gpt-oss-120b-negative-kv",
       "start-up 1\n"
       "9 -: model weights 65.9651 GiB\n"
       "14 -: available KV cache memory -2.14 GiB\n"
       "15 failed: error\n"},
      {"vllm-h100-x1-gpt-oss-120b-no-cache-blocks",
       "start-up 1\n"
       "8 -: available KV cache memory 1.71 GiB\n"
       "39 -: KV cache one request needs 4.54 GiB\n"
       "9 failed: error\n"
       "39 failed: KV cache too small\n"
       "start-up 2\n"
       "23 failed: no KV cache memory\n"},
      {"vllm-h100-x1-gpt-oss-120b-v0141-upgrade-oom",
       "start-up 1\n"
       "13 -: model weights 64.38 GiB\n"},
      {"vllm-h100-x1-sleep-mode-profiling-gross-error",
       "start-up 1\n"
       "23 -: free at start-up 77.39 GiB\n"
       "23 -: budget (total x utilization) 65.32 GiB\n"
       "25 -: activation peak 0.34 GiB\n"
       "25 -: non-torch memory 32.4 GiB\n"
       "25 -: model weights 0.93 GiB\n"
       "26 -: available KV cache memory 31.65 GiB\n"},
      {"vllm-h100-x4-qwen3-235b-a22b-fp8-kv-vs-sglang",
       "start-up 1\n"
       "11 -: available KV cache memory 8.11 GiB\n"
       "12 -: KV cache tokens 178880\n"},
      {"vllm-h100-x8-deepseek-v4-flash-tp8-fail",
       "start-up 1\n"
       "11 rank 0: model weights 20.06 GiB\n"},
      {"vllm-h20-x1-qwen2.5-72b-fp8-v0130-weight-load-oom",
       "start-up 1\n"
       "10 -: total GPU memory 139.72 GiB\n"
       "10 failed: out of memory, asked 0.0781 GiB, free 0.0593 GiB\n"},
      {"vllm-h20-x1-qwen3.5-27b-kv-size-log",
       "start-up 1\n"
       "9 -: KV cache tokens 290864\n"
       "10 -: maximum concurrency 33.04x\n"},
      {"vllm-h20-x8-qwen3-coder-480b-fp8-dp8-ep-kv-too-small",
       "start-up 1\n"
       "9 -: KV cache one request needs 62.00 GiB\n"
       "9 -: available KV cache memory 48.66 GiB\n"
       "9 -: KV tokens storable 205728\n"
       "9 failed: KV cache too small\n"
       "start-up 2\n"
       "12 -: KV cache one request needs 62.00 GiB\n"
       "12 -: available KV cache memory 55.65 GiB\n"
       "12 -: KV tokens storable 235296\n"
       "12 failed: KV cache too small\n"},
      {"vllm-h200-x1-llama3.1-8b-nightly-free-memory-startup",
       "start-up 1\n"
       "9 -: free at start-up 7.34 GiB\n"
       "9 -: total GPU memory 139.72 GiB\n"
       "9 -: budget (total x utilization) 125.75 GiB\n"
       "9 failed: free memory below the budget\n"},
      {"vllm-h200-x8-glm-5.1-fp8-v020-runai-eager",
       "start-up 1\n"
       "17 rank 0: model weights 89.39 GiB\n"
       "27 rank 0: available KV cache memory 34.86 GiB\n"
       "28 -: KV cache tokens 373696\n"
       "29 -: maximum concurrency 1.84x\n"},
      {"vllm-l40s-x2-qwen2.5-32b-instruct-v071-v0-profiling",
       "start-up 1\n"
       "13 -: model weights 30.7098 GiB\n"
       "14 rank 1: model weights 30.7098 GiB\n"
       "16 rank 1: total GPU memory 44.42 GiB\n"
       "16 rank 1: budget (total x utilization) 39.98 GiB\n"
       "17 rank 1: non-torch memory 0.30 GiB\n"
       "17 rank 1: activation peak 1.26 GiB\n"
       "17 rank 1: available KV cache memory 7.71 GiB\n"
       "19 -: total GPU memory 44.42 GiB\n"
       "19 -: budget (total x utilization) 39.98 GiB\n"
       "20 -: non-torch memory 0.30 GiB\n"
       "20 -: activation peak 1.26 GiB\n"
       "20 -: available KV cache memory 7.71 GiB\n"
       "21 -: GPU blocks 3947\n"},
      {"vllm-rtx3090-x1-club3090-long-text-180k-kv-too-small",
       "start-up 1\n"
       "8 -: KV cache one request needs 3.05 GiB\n"
       "8 -: available KV cache memory 2.17 GiB\n"
       "8 -: KV tokens storable 111456\n"
       "8 failed: KV cache too small\n"},
      {"vllm-rtx3090-x1-gpt-oss-20b-docker-triton-attn",
       "start-up 1\n"
       "22 -: model weights 12.8848 GiB\n"},
      {"vllm-rtx3090-x1-qwen2.5-vl-7b-gpustack-v0-kv-too-small",
       "start-up 1\n"
       "25 -: KV tokens storable 2400\n"
       "25 failed: KV cache too small\n"},
      {"vllm-rtx3090-x1-qwen3.8-27b-low-ram-kv-too-small",
       "start-up 1\n"
       "7 -: KV cache one request needs 4.76 GiB\n"
       "7 -: available KV cache memory 1.56 GiB\n"
       "7 -: KV tokens storable 15984\n"
       "7 failed: KV cache too small\n"},
      {"vllm-rtx3090-x16-deepseek-v3-0324-awq-v0-profiling",
       "start-up 1\n"
       "12 rank 1: model weights 21.21 GiB\n"
       "12 rank 1: non-torch memory 0.20 GiB\n"
       "12 rank 1: activation peak 0.37 GiB\n"
       "12 rank 1: available KV cache memory 1.57 GiB\n"
       "14 rank 2: total GPU memory 23.58 GiB\n"
       "14 rank 2: budget (total x utilization) 23.35 GiB\n"
       "15 rank 2: model weights 21.21 GiB\n"
       "15 rank 2: non-torch memory 0.20 GiB\n"
       "15 rank 2: activation peak 0.37 GiB\n"
       "15 rank 2: available KV cache memory 1.57 GiB\n"
       "17 rank 3: total GPU memory 23.58 GiB\n"
       "17 rank 3: budget (total x utilization) 23.35 GiB\n"
       "18 rank 3: model weights 21.21 GiB\n"
       "18 rank 3: non-torch memory 0.20 GiB\n"
       "18 rank 3: activation peak 0.37 GiB\n"
       "18 rank 3: available KV cache memory 1.57 GiB\n"},
      {"vllm-rtx3090-x2-qwen3.6-27b-autoround-fp8e5m2-kv",
       "start-up 1\n"
       "11 rank 0: CUDA graph estimate 0.13 GiB\n"
       "12 rank 1: CUDA graph estimate 0.13 GiB\n"
       "13 rank 0: available KV cache memory 11.06 GiB\n"},
      {"vllm-rtx3090-x2-qwen3.6-27b-autoround-int4-mtp",
       "start-up 1\n"
       "7 -: KV cache tokens 620944\n"
       "8 -: maximum concurrency 2.37x\n"},
      {"vllm-rtx3090-x2-qwen3.8-27b-dual-max-kv-memory-hint",
       "start-up 1\n"
       "7 rank 0: free at start-up 23.15 GiB\n"
       "7 rank 0: total GPU memory 23.56 GiB\n"
       "7 rank 0: budget (total x utilization) 21.67 GiB\n"
       "7 rank 0: consumed memory (weights + non-torch) 15.25 GiB\n"
       "7 rank 0: activation peak 1.66 GiB\n"
       "7 rank 0: CUDA graphs took 0.14 GiB\n"
       "7 rank 0: available KV cache memory 4.76 GiB\n"
       "8 rank 1: CUDA graphs took 0.14 GiB\n"
       "8 rank 1: CUDA graph estimate 0.2 GiB\n"
       "9 rank 1: free at start-up 23.14 GiB\n"
       "9 rank 1: total GPU memory 23.56 GiB\n"
       "9 rank 1: budget (total x utilization) 21.67 GiB\n"
       "9 rank 1: consumed memory (weights + non-torch) 15.25 GiB\n"
       "9 rank 1: activation peak 1.66 GiB\n"
       "9 rank 1: available KV cache memory 4.76 GiB\n"},
      {"vllm-rtx3090-x2-qwen3.8-27b-fp8-262k",
       "start-up 1\n"
       "7 -: KV cache tokens 302921\n"
       "8 -: maximum concurrency 2.31x\n"},
      {"vllm-rtx3090-x4-qwen3.6-27b-autoround-int4-tp4",
       "start-up 1\n"
       "11 rank 1: CUDA graph estimate 0.17 GiB\n"
       "12 rank 3: utilization less the graph estimate 0.9129\n"
       "13 rank 0: available KV cache memory 15.72 GiB\n"
       "14 rank 0: utilization less the graph estimate 0.9129\n"},
      {"vllm-rtx3090-x8-dsv4-flash-0731-pp2-tp4-free-memory-hint",
       "start-up 1\n"
       "7 rank 3: free at start-up 22.93 GiB\n"
       "7 rank 3: total GPU memory 23.56 GiB\n"
       "7 rank 3: budget (total x utilization) 22.03 GiB\n"
       "7 rank 3: consumed memory (weights + non-torch) 19.47 GiB\n"
       "7 rank 3: activation peak 0.6 GiB\n"
       "7 rank 3: CUDA graphs took 0.1 GiB\n"
       "7 rank 3: available KV cache memory 1.95 GiB\n"
       "8 rank 2: CUDA graphs took 0.1 GiB\n"
       "8 rank 2: CUDA graph estimate 0.58 GiB\n"
       "9 rank 2: free at start-up 22.93 GiB\n"
       "9 rank 2: total GPU memory 23.56 GiB\n"
       "9 rank 2: budget (total x utilization) 22.03 GiB\n"
       "9 rank 2: consumed memory (weights + non-torch) 19.47 GiB\n"
       "9 rank 2: activation peak 0.6 GiB\n"
       "9 rank 2: available KV cache memory 1.95 GiB\n"},
      {"vllm-rtx4060-x1-qwen2.5-7b-v0-negative-kv",
       "start-up 1\n"
       "6 -: model weights 5.2032 GiB\n"
       "8 -: total GPU memory 8.00 GiB\n"
       "8 -: budget (total x utilization) 5.60 GiB\n"
       "9 -: non-torch memory 0.03 GiB\n"
       "9 -: activation peak 1.42 GiB\n"
       "9 -: available KV cache memory -1.05 GiB\n"
       "10 -: GPU blocks 0\n"
       "11 -: maximum concurrency 0.00x\n"},
      {"vllm-rtx4090-48gb-x1-awq-batch-invariant",
       "start-up 1\n"
       "6 -: KV cache tokens 268560\n"
       "6 -: maximum concurrency 131.13x\n"
       "11 -: CUDA graphs took 0.22 GiB\n"
       "12 -: CUDA graph estimate 0.42 GiB\n"
       "13 -: free at start-up 46.99 GiB\n"
       "13 -: total GPU memory 47.37 GiB\n"
       "13 -: budget (total x utilization) 40.27 GiB\n"
       "13 -: consumed memory (weights + non-torch) 2.81 GiB\n"
       "13 -: activation peak 0.57 GiB\n"
       "13 -: available KV cache memory 36.88 GiB\n"},
      {"vllm-rtx4090-48gb-x4-deepseek-v4-flash-sm89-kv-too-small",
       "start-up 1\n"
       "16 -: KV cache one request needs 1.34 GiB\n"
       "16 -: available KV cache memory 0.3 GiB\n"
       "16 -: KV tokens storable 720\n"
       "16 failed: KV cache too small\n"},
      {"vllm-rtx4090-x1-qwen2.5-vl-7b-len8192-image-limit-1",
       "start-up 1\n"
       "9 -: model weights 15.67 GiB\n"
       "10 -: KV cache tokens 62736\n"
       "11 -: maximum concurrency 7.66x\n"},
      {"vllm-rtx4090-x32-deepseek-v3-tp8-pp4-4nodes",
       "start-up 1\n"
       "15 -: model weights 16.9583 GiB\n"
       "16 rank 1: model weights 16.9687 GiB\n"
       "17 rank 2: model weights 16.9687 GiB\n"
       "18 rank 3: model weights 16.9687 GiB\n"},
      {"vllm-rtx5070ti-rtx5090d-x2-qwen3-coder-30b-a3b-fp8-pp2-kv-too-small",
       "start-up 1\n"
       "8 -: KV cache one request needs 24.0 GiB\n"
       "8 -: available KV cache memory 3.18 GiB\n"
       "8 -: KV tokens storable 34736\n"
       "8 failed: KV cache too small\n"},
      {"vllm-rtx5090-x1-qwen-27b-nvfp4-club3090-617-kv-oom",
       "start-up 1\n"
       "10 -: CUDA graph estimate 0.08 GiB\n"
       "11 -: available KV cache memory 3.93 GiB\n"
       "12 -: utilization less the graph estimate 0.8475\n"},
      {"vllm-rtx5090-x1-qwen3.6-35b-a3b-nvfp4-club3090",
       "start-up 1\n"
       "7 -: available KV cache memory 5.98 GiB\n"
       "8 -: KV cache tokens 567978\n"
       "9 -: maximum concurrency 4.33x\n"},
      {"vllm-rtx5090-x1-qwen3.6-35b-a3b-nvfp4-run2",
       "start-up 1\n"
       "7 -: available KV cache memory 6.01 GiB\n"
       "8 -: KV cache tokens 569878\n"
       "9 -: maximum concurrency 4.35x\n"},
      {"vllm-rtx5090-x2-qwen3.8-27b-dual-superfast",
       "start-up 1\n"
       "7 rank 0: available KV cache memory 15.99 GiB\n"
       "8 -: KV cache tokens 717985\n"
       "9 -: maximum concurrency 2.74x\n"},
      {"vllm-rtx5090-x2-qwen3.8-27b-fp8-kv-memory-hint",
       "start-up 1\n"
       "7 rank 0: free at start-up 30.27 GiB\n"
       "7 rank 0: total GPU memory 31.4 GiB\n"
       "7 rank 0: budget (total x utilization) 28.88 GiB\n"
       "7 rank 0: consumed memory (weights + non-torch) 15.03 GiB\n"
       "7 rank 0: activation peak 1.59 GiB\n"
       "7 rank 0: CUDA graphs took 0.09 GiB\n"
       "7 rank 0: available KV cache memory 12.26 GiB\n"
       "8 rank 1: CUDA graphs took 0.09 GiB\n"
       "8 rank 1: CUDA graph estimate 0.13 GiB\n"
       "9 rank 1: free at start-up 30.5 GiB\n"
       "9 rank 1: total GPU memory 31.4 GiB\n"
       "9 rank 1: budget (total x utilization) 28.88 GiB\n"
       "9 rank 1: consumed memory (weights + non-torch) 15.05 GiB\n"
       "9 rank 1: activation peak 1.59 GiB\n"
       "9 rank 1: available KV cache memory 12.24 GiB\n"},
      {"vllm-rtx5090laptop-x1-qwen3.8-27b-nvfp4-cudagraph-oom",
       "start-up 1\n"
       "16 -: available KV cache memory 2.97 GiB\n"
       "17 -: KV cache tokens 150745\n"
       "18 -: CUDA graphs took 0.46 GiB\n"},
      {"vllm-unknown-x1-gemma4-v026-kv-cache-memory-bytes-fail",
       "start-up 1\n"
       "9 -: free at start-up 93.88 GiB\n"
       "9 -: available KV cache memory 49.0 GiB\n"
       "10 failed: error\n"},
      {"vllm-rtx4090-x1-llama3.1-8b-int8-v1-graph-capture",
       "start-up 1\n"
       "7 -: maximum concurrency 1.46x\n"
       "8 -: CUDA graphs took 2.02 GiB\n"},
      {"vllm-unknown-x1-qwen3.5-gguf-v019-kv-override-pr39559",
       "start-up 1\n"
       "9 -: CUDA graph estimate 1.62 GiB\n"
       "10 -: available KV cache memory 6.9 GiB\n"
       "12 -: KV cache tokens 89760\n"
       "13 -: maximum concurrency 1.36x\n"},
      {"vllm-unknown-x1-v0141-llama3.1-8b-block-size-crash", "start-up 1\n"},
      {"vllm-unknown-x2-dp2-v092-kv-size-5000-tokens",
       "start-up 1\n"
       "6 -: KV cache tokens 467520\n"
       "7 -: maximum concurrency 93.35x\n"
       "8 -: KV cache tokens 467520\n"
       "9 -: maximum concurrency 93.35x\n"},
      {"vllm-unknown-x32-deepseek-v3.2-tp8-pp4-ray-init-error",
       "start-up 1\n"
       "10 -: KV cache tokens 1214464\n"
       "11 -: maximum concurrency 7.41x\n"
       "12 failed: error\n"},
      {"vllm-a10-x4-qwen3-30b-a3b-v085-docker-cudagraph-fail",
       "start-up 1\n"
       "11 rank 0: model weights 14.2474 GiB\n"
       "12 rank 2: model weights 14.2474 GiB\n"
       "13 rank 1: model weights 14.2474 GiB\n"
       "14 rank 3: model weights 14.2474 GiB\n"
       "16 -: KV cache tokens 198784\n"
       "17 -: maximum concurrency 24.27x\n"
       "18 failed: error\n"},
      {"vllm-unknown-x8-deepseek-r1-distill-llama-70b-v1-oom",
       "start-up 1\n"
       "8 rank 0: KV cache tokens 106640\n"
       "9 rank 0: maximum concurrency 13.02x\n"
       "10 rank 1: KV cache tokens 106640\n"
       "11 rank 1: maximum concurrency 13.02x\n"
       "12 rank 2: KV cache tokens 106640\n"
       "13 rank 2: maximum concurrency 13.02x\n"
       "14 rank 3: KV cache tokens 106640\n"
       "15 rank 3: maximum concurrency 13.02x\n"
       "16 rank 4: KV cache tokens 106640\n"
       "17 rank 4: maximum concurrency 13.02x\n"
       "18 rank 5: KV cache tokens 106640\n"
       "19 rank 5: maximum concurrency 13.02x\n"
       "20 rank 6: KV cache tokens 106640\n"},
      {"vllm-gb300-x8-qwen3.8-2.4t-nvfp4-tp2-dp4-ep-cudagraph-estimate-no-cache-blocks",
       "start-up 1\n"
       "6 rank 1: CUDA graph estimate 118.65 GiB\n"
       "8 failed: no KV cache memory\n"},
      {"vllm-rtx3090-x1-qwen3-30b-a3b-w4a16-v0-profiling",
       "start-up 1\n"
       "10 -: model weights 15.6841 GiB\n"
       "13 -: total GPU memory 23.56 GiB\n"
       "13 -: budget (total x utilization) 21.20 GiB\n"
       "14 -: non-torch memory 0.06 GiB\n"
       "14 -: activation peak 0.12 GiB\n"
       "14 -: available KV cache memory 5.34 GiB\n"},
      {"vllm-unknown-x1-fp8-kv-maxlen-221000-kv-too-small",
       "start-up 1\n"
       "7 -: available KV cache memory 10.55 GiB\n"
       "8 -: KV cache tokens 230528\n"
       "9 -: maximum concurrency 2.31x\n"
       "11 -: KV cache one request needs 10.12 GiB\n"
       "11 -: KV tokens storable 122080\n"
       "11 failed: KV cache too small\n"},
      {"vllm-unknown-x1-hybrid-mamba-v018-cudagraph-estimate-kv",
       "start-up 1\n"
       "5 -: CUDA graph estimate 0.26 GiB\n"
       "6 -: available KV cache memory 17.36 GiB\n"
       "8 -: KV cache tokens 188640\n"
       "9 -: maximum concurrency 5.23x\n"},
      {"vllm-unknown-x8-glm-4.7-fp8-pp8-v015-kv-too-small",
       "start-up 1\n"
       "25 -: KV cache one request needs 71.16 GiB\n"
       "25 -: available KV cache memory 28.57 GiB\n"
       "25 -: KV tokens storable 81392\n"
       "25 failed: KV cache too small\n"},
      {"vllm-l4-x1-gpt-oss-20b-ci-second-server-free-check",
       "start-up 1\n"
       "8 -: free at start-up 1.54 GiB\n"
       "8 -: total GPU memory 22.05 GiB\n"
       "8 -: budget (total x utilization) 19.84 GiB\n"
       "8 failed: free memory below the budget\n"},
      {"vllm-rtx4090-x1-qwen3.6-27b-int4-windows-desktop-free-check",
       "start-up 1\n"
       "7 -: free at start-up 22.45 GiB\n"
       "7 -: total GPU memory 23.99 GiB\n"
       "7 -: budget (total x utilization) 22.55 GiB\n"
       "7 failed: free memory below the budget\n"},
      {"vllm-a100-x1-qwen3-0.6b-flashinfer-bf16",
       "start-up 1\n"
       "11 -: model weights 1.1201 GiB\n"
       "12 -: available KV cache memory 69.66 GiB\n"
       "13 -: KV cache tokens 652144\n"
       "14 -: maximum concurrency 159.21x\n"},
      {"vllm-l40s-x32-deepseek-r1-tp8-pp-ray-oom-cudagraph",
       "start-up 1\n"
       "9 rank 2: total GPU memory 44.53 GiB\n"
       "9 rank 2: budget (total x utilization) 43.64 GiB\n"
       "10 rank 2: model weights 20.64 GiB\n"
       "10 rank 2: non-torch memory 0.28 GiB\n"
       "10 rank 2: activation peak 1.52 GiB\n"
       "10 rank 2: available KV cache memory 21.20 GiB\n"},
      {"vllm-rtx5090-x2-qwq-32b-bnb4bit-pp2",
       "start-up 1\n"
       "11 -: model weights 10.80 GiB\n"
       "11 -: non-torch memory 0.33 GiB\n"
       "11 -: activation peak 1.01 GiB\n"
       "11 -: available KV cache memory 14.52 GiB\n"
       "13 rank 1: total GPU memory 31.37 GiB\n"
       "13 rank 1: budget (total x utilization) 26.66 GiB\n"
       "14 rank 1: model weights 10.30 GiB\n"
       "14 rank 1: non-torch memory 0.33 GiB\n"
       "14 rank 1: activation peak 1.77 GiB\n"
       "14 rank 1: available KV cache memory 14.26 GiB\n"
       "15 -: GPU blocks 7299\n"
       "16 -: maximum concurrency 2.34x\n"},
      {"vllm-rtxa5000-x2-qwen3-next-80b-a3b-autoround-int4-fp8kv",
       "start-up 1\n"
       "17 rank 0: KV cache tokens 90048\n"
       "18 rank 0: maximum concurrency 1.66x\n"
       "19 rank 1: KV cache tokens 90048\n"
       "20 rank 1: maximum concurrency 1.66x\n"},
      {"vllm-rtxpro5000-x4-deepseek-v4-flash-0731-fp8dsmla",
       "start-up 1\n"
       "7 -: available KV cache memory 12.39 GiB\n"
       "8 -: KV cache tokens 63859\n"
       "8 -: maximum concurrency 1.89x\n"},
      {"vllm-unknown-x1-harrier-oss-v1-0.6b-embedding",
       "start-up 1\n"
       "17 -: CUDA graph estimate 0.44 GiB\n"
       "18 -: available KV cache memory 37.99 GiB\n"
       "19 -: utilization less the graph estimate 0.8901\n"},
      {"vllm-unknown-x2-nemotron-3-nano-30b-a3b-nvfp4-marlin",
       "start-up 1\n"
       "19 rank 1: CUDA graph estimate 4.30 GiB\n"
       "20 rank 0: CUDA graph estimate 4.38 GiB\n"
       "22 rank 0: available KV cache memory 25.46 GiB\n"},
      {"vllm-unknown32gb-x1-qwen3-30b-a3b-gptq-oom-load",
       "start-up 1\n"
       "12 -: total GPU memory 31.36 GiB\n"
       "12 failed: out of memory, asked 0.0195 GiB, free 0.0427 GiB\n"},
  };
  return kLogs;
}

TEST(CorpusVllm, EveryLogReadsAsReviewed) { check_corpus(LogEngine::kVllm, "vllm-", logs()); }

}  // namespace
}  // namespace gpumem
