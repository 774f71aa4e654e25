// The SGLang logs of the public corpus (tests/data/engine-logs/sglang-*.log), each as explain
// reads it: every figure with its line, the rank whose prefix printed it, its value as
// printed and its unit; every failure with what it asked and what was free. Each rendering
// was reviewed against its log (explain/startup_log.h names the line each figure comes from).
#include <gtest/gtest.h>

#include "tests/explain/corpus_reading.h"

namespace gpumem {
namespace {

const std::vector<CorpusLog>& logs() {
  static const std::vector<CorpusLog> kLogs = {
      {"sglang-141gb-x1-gemma3-4b-it-pr4826-smoke",
       "start-up 1\n"
       "9 rank 0: free after weights (A) 131.08 GiB\n"
       "9 rank 0: weights took 8.13 GiB\n"
       "10 rank 0: KV cache tokens 834615\n"
       "10 rank 0: K cache 54.12 GiB\n"
       "10 rank 0: V cache 54.12 GiB\n"
       "11 rank 0: free after KV pool 14.61 GiB\n"
       "13 rank 0: free before CUDA graphs 13.95 GiB\n"},
      {"sglang-178gb-x1-qwen3-vl-32b-instruct-fp8-tp1",
       "start-up 1\n"
       "28 -: free after weights (A) 143.29 GiB\n"
       "28 -: weights took 34.45 GiB\n"
       "30 -: KV cache tokens 436380\n"
       "30 -: K cache 53.27 GiB\n"
       "30 -: V cache 53.27 GiB\n"
       "31 -: free after KV pool 34.66 GiB\n"
       "32 -: free before CUDA graphs 34.22 GiB\n"},
      {"sglang-48gb-x4-glm-4.5-air-fp8-tp4-capture-outofresources",
       "start-up 1\n"
       "34 rank 0: distributed init took 0.19 GiB\n"
       "35 rank 0: free before weights (F) 46.21 GiB\n"},
      {"sglang-80gb-x1-qwen3-4b-multi-lora-ngram-v054post3",
       "start-up 1\n"
       "11 -: KV cache tokens 421472\n"
       "11 -: K cache 28.94 GiB\n"
       "11 -: V cache 28.94 GiB\n"
       "12 -: free after KV pool 12.89 GiB\n"
       "13 -: free before CUDA graphs 12.79 GiB\n"
       "16 -: CUDA graphs took 0.61 GiB\n"
       "16 -: free after CUDA graphs 12.18 GiB\n"
       "17 -: max_running_requests 48\n"
       "17 -: free when ready 12.18 GiB\n"},
      {"sglang-rtx4090-x1-gemma-3-27b-it-int4-awq-not-enough-memory",
       "start-up 1\n"
       "17 rank 0: free after weights (A) 3.64 GiB\n"
       "17 rank 0: weights took 18.82 GiB\n"},
      {"sglang-141gb-x4-qwen3-moe-bf16-deepgemm-ep4",
       "start-up 1\n"
       "8 rank 1: free after weights (A) 121.90 GiB\n"
       "8 rank 1: weights took 16.39 GiB\n"
       "12 rank 0: free after weights (A) 121.95 GiB\n"
       "12 rank 0: weights took 16.39 GiB\n"
       "13 rank 3: free after weights (A) 122.14 GiB\n"
       "13 rank 3: weights took 16.39 GiB\n"
       "14 rank 2: free after weights (A) 121.90 GiB\n"
       "14 rank 2: weights took 16.39 GiB\n"
       "16 rank 0: KV cache tokens 1029388\n"
       "16 rank 0: K cache 47.12 GiB\n"
       "16 rank 0: V cache 47.12 GiB\n"
       "17 rank 0: free after KV pool 27.62 GiB\n"
       "18 rank 2: KV cache tokens 1029388\n"
       "18 rank 2: K cache 47.12 GiB\n"
       "18 rank 2: V cache 47.12 GiB\n"
       "19 rank 2: free after KV pool 27.57 GiB\n"
       "20 rank 1: KV cache tokens 1029388\n"
       "20 rank 1: K cache 47.12 GiB\n"
       "20 rank 1: V cache 47.12 GiB\n"},
      {"sglang-141gb-x8-deepseek-r1-pd-ep-dp-attention",
       "start-up 1\n"
       "10 rank 2: free after weights (A) 31.87 GiB\n"
       "10 rank 2: weights took 105.59 GiB\n"
       "11 rank 0: free after weights (A) 31.96 GiB\n"
       "11 rank 0: weights took 105.59 GiB\n"
       "12 rank 3: free after weights (A) 31.87 GiB\n"
       "12 rank 3: weights took 105.59 GiB\n"
       "13 rank 1: KV cache tokens 161488\n"
       "13 rank 1: KV cache (MLA) 10.57 GiB\n"
       "14 rank 7: KV cache tokens 161488\n"
       "14 rank 7: KV cache (MLA) 10.57 GiB\n"
       "15 rank 3: KV cache tokens 161488\n"
       "15 rank 3: KV cache (MLA) 10.57 GiB\n"
       "16 rank 5: KV cache tokens 161488\n"
       "16 rank 5: KV cache (MLA) 10.57 GiB\n"
       "17 rank 1: free after KV pool 21.23 GiB\n"
       "18 rank 5: free after KV pool 21.23 GiB\n"},
      {"sglang-rtx4090-x1-qwen3-30b-a3b-gptq-int4-scheduler-exception",
       "start-up 1\n"
       "7 -: distributed init took 0.00 GiB\n"
       "8 -: free before weights (F) 23.07 GiB\n"
       "15 failed: error\n"},
      {"sglang-48gb-x1-qwen3-14b-xinference",
       "start-up 1\n"
       "7 -: free after weights (A) 19.67 GiB\n"
       "7 -: weights took 27.57 GiB\n"
       "8 -: KV cache tokens 91749\n"
       "8 -: K cache 7.00 GiB\n"
       "8 -: V cache 7.00 GiB\n"
       "9 -: free after KV pool 5.27 GiB\n"
       "10 -: free before CUDA graphs 4.64 GiB\n"},
      {"sglang-48gb-x2-glm5.1-lsglang-mtp-lkmoe-oom",
       "start-up 1\n"
       "8 rank 1: total GPU memory 47.37 GiB\n"
       "8 failed: out of memory, asked 0.0234 GiB, free 0.0042 GiB\n"},
      {"sglang-80gb-x1-qwen3-8b-v046-vs-vllm",
       "start-up 1\n"
       "8 -: free after weights (A) 63.49 GiB\n"
       "8 -: weights took 15.35 GiB\n"
       "9 -: KV cache tokens 404890\n"
       "9 -: K cache 27.80 GiB\n"
       "9 -: V cache 27.80 GiB\n"
       "10 -: free after KV pool 7.64 GiB\n"
       "11 -: free before CUDA graphs 7.02 GiB\n"
       "14 -: CUDA graphs took 1.39 GiB\n"
       "14 -: free after CUDA graphs 5.63 GiB\n"
       "15 -: max_running_requests 4097\n"},
      {"sglang-80gb-x4-qwen3-omni-30b-a3b-tp4",
       "start-up 1\n"
       "6 rank 2: KV cache tokens 2090351\n"
       "6 rank 2: K cache 23.92 GiB\n"
       "6 rank 2: V cache 23.92 GiB\n"
       "7 rank 1: KV cache tokens 2090351\n"
       "7 rank 1: K cache 23.92 GiB\n"
       "7 rank 1: V cache 23.92 GiB\n"
       "8 rank 3: free after KV pool 12.68 GiB\n"
       "9 rank 2: free after KV pool 12.45 GiB\n"
       "10 rank 1: free after KV pool 12.45 GiB\n"
       "11 rank 2: free before CUDA graphs 11.87 GiB\n"
       "12 rank 3: free before CUDA graphs 12.11 GiB\n"
       "13 rank 0: free before CUDA graphs 11.92 GiB\n"
       "15 rank 1: free before CUDA graphs 11.87 GiB\n"},
      {"sglang-a100-x16-deepseek-r1-skypilot-dp-attention",
       "start-up 1\n"
       "7 rank 6: free after weights (A) 24.75 GiB\n"
       "8 rank 5: free after weights (A) 24.75 GiB\n"
       "9 rank 7: free after weights (A) 24.77 GiB\n"
       "10 rank 2: free after weights (A) 24.75 GiB\n"
       "11 rank 3: free after weights (A) 24.75 GiB\n"
       "12 rank 0: free after weights (A) 24.77 GiB\n"
       "13 rank 4: free after weights (A) 24.75 GiB\n"},
      {"sglang-b200-x1-qwen2.5-vl-7b-piecewise-cudagraph",
       "start-up 1\n"
       "15 -: KV cache tokens 2243474\n"
       "15 -: K cache 59.91 GiB\n"
       "15 -: V cache 59.91 GiB\n"
       "16 -: free after KV pool 40.03 GiB\n"
       "18 -: free before CUDA graphs 39.48 GiB\n"
       "20 -: CUDA graphs took 1.44 GiB\n"
       "20 -: free after CUDA graphs 38.05 GiB\n"},
      {"sglang-b200-x8-deepseek-v3.2-exp-dp8-indexer-kv",
       "start-up 1\n"
       "9 rank 0: KV cache tokens 975424\n"
       "9 rank 0: KV cache (MLA) 43.67 GiB\n"
       "10 rank 0: free after KV pool 37.71 GiB\n"
       "start-up 2\n"
       "12 rank 0: KV cache tokens 1462784\n"
       "12 rank 0: KV cache (MLA) 54.52 GiB\n"
       "13 rank 0: free after KV pool 15.38 GiB\n"},
      {"sglang-b300-x8-deepseek-v3.2-dsv32-image-capture-kernel-fail",
       "start-up 1\n"
       "10 rank 0: free after weights (A) 172.51 GiB\n"
       "10 rank 0: weights took 93.06 GiB\n"
       "15 rank 5: KV cache tokens 3627136\n"
       "15 rank 5: KV cache (MLA) 162.38 GiB\n"
       "16 rank 5: free after KV pool 7.43 GiB\n"
       "17 rank 6: free before CUDA graphs 6.99 GiB\n"
       "19 rank 2: free before CUDA graphs 6.99 GiB\n"
       "21 rank 7: free before CUDA graphs 7.31 GiB\n"
       "23 rank 3: free before CUDA graphs 6.99 GiB\n"
       "25 rank 0: free before CUDA graphs 7.06 GiB\n"
       "18 failed: error\n"},
      {"sglang-gb200-x4-deepseek-r1-fp4-symm-mem-oom",
       "start-up 1\n"
       "12 -: total GPU memory 184.00 GiB\n"
       "12 failed: out of memory, asked 4.0000 GiB, free 2.2100 GiB\n"},
      {"sglang-gb200-x4-glm-4.5-air-fp8-dp2-ep",
       "start-up 1\n"
       "7 rank 0: KV cache tokens 1339395\n"
       "7 rank 0: K cache 58.76 GiB\n"
       "7 rank 0: V cache 58.76 GiB\n"
       "8 rank 0: free after KV pool 34.30 GiB\n"
       "9 rank 2: KV cache tokens 1339395\n"
       "9 rank 2: K cache 58.76 GiB\n"
       "9 rank 2: V cache 58.76 GiB\n"
       "10 rank 3: KV cache tokens 1339395\n"
       "10 rank 3: K cache 58.76 GiB\n"
       "10 rank 3: V cache 58.76 GiB\n"
       "11 rank 1: KV cache tokens 1339395\n"
       "11 rank 1: K cache 58.76 GiB\n"
       "11 rank 1: V cache 58.76 GiB\n"
       "12 rank 0: max_running_requests 4096\n"
       "12 rank 0: free when ready 33.74 GiB\n"},
      {"sglang-h100-x16-deepseek-r1-2node-garbled",
       "start-up 1\n"
       "7 rank 2: free after KV pool 15.85 GiB\n"
       "8 rank 0: free after KV pool 15.89 GiB\n"
       "9 rank 5: free after KV pool 15.85 GiB\n"
       "10 rank 4: free after KV pool 15.85 GiB\n"
       "11 rank 1: free after KV pool 15.85 GiB\n"
       "12 rank 7: free after KV pool 15.86 GiB\n"
       "13 rank 6: free after KV pool 15.85 GiB\n"
       "14 rank 3: free after KV pool 15.85 GiB\n"},
      {"sglang-h100-x4-qwen3-235b-a22b-fp8-kv-vs-vllm",
       "start-up 1\n"
       "8 -: KV cache tokens 367404\n"
       "8 -: K cache 8.23 GiB\n"
       "8 -: V cache 8.23 GiB\n"},
      {"sglang-h100-x8-llama4-maverick-cudagraph-mem",
       "start-up 1\n"
       "7 rank 0: CUDA graphs took 6.19 GiB\n"
       "7 rank 0: free after CUDA graphs 5.24 GiB\n"},
      {"sglang-h20-x1-qwen3-next-80b-int8dq-oom",
       "start-up 1\n"
       "12 -: total GPU memory 95.08 GiB\n"
       "12 failed: out of memory, asked 2.0000 GiB, free 1.2700 GiB\n"},
      {"sglang-h200-x8-deepseek-v3-crash-on-start",
       "start-up 1\n"
       "10 rank 7: free after weights (A) 58.12 GiB\n"},
      {"sglang-h200-x8-deepseek-v3-cudagraph-bs256",
       "start-up 1\n"
       "10 rank 7: CUDA graphs took 6.22 GiB\n"
       "10 rank 7: free after CUDA graphs 5.61 GiB\n"
       "start-up 2\n"
       "14 rank 5: CUDA graphs took 6.27 GiB\n"
       "14 rank 5: free after CUDA graphs 5.09 GiB\n"},
      {"sglang-h200-x8-deepseek-v4-pro-fp8-no-kv-room",
       "start-up 1\n"
       "8 -: free after weights (A) 12.25 GiB\n"
       "8 -: weights took 125.65 GiB\n"
       "10 failed: not enough memory\n"},
      {"sglang-h200-x8-llama3.3-70b-piecewise-cudagraph",
       "start-up 1\n"
       "10 rank 7: distributed init took 1.77 GiB\n"
       "11 rank 6: distributed init took 2.01 GiB\n"
       "12 rank 0: distributed init took 1.96 GiB\n"
       "13 rank 5: distributed init took 2.01 GiB\n"
       "14 rank 2: distributed init took 2.01 GiB\n"
       "15 rank 4: distributed init took 2.01 GiB\n"
       "16 rank 3: distributed init took 2.01 GiB\n"
       "17 rank 1: distributed init took 2.01 GiB\n"
       "19 rank 5: free before weights (F) 137.29 GiB\n"
       "20 rank 4: free before weights (F) 137.29 GiB\n"
       "21 rank 6: free before weights (F) 137.29 GiB\n"
       "22 rank 2: free before weights (F) 137.29 GiB\n"
       "23 rank 0: free before weights (F) 137.34 GiB\n"
       "24 rank 7: free before weights (F) 137.52 GiB\n"
       "25 rank 3: free before weights (F) 137.29 GiB\n"
       "26 rank 1: free before weights (F) 137.29 GiB\n"
       "29 rank 5: KV cache tokens 2795207\n"
       "29 rank 5: K cache 53.31 GiB\n"
       "29 rank 5: V cache 53.31 GiB\n"
       "30 rank 1: KV cache tokens 2795207\n"
       "30 rank 1: K cache 53.31 GiB\n"
       "30 rank 1: V cache 53.31 GiB\n"
       "31 rank 3: KV cache tokens 2795207\n"
       "31 rank 3: K cache 53.31 GiB\n"
       "31 rank 3: V cache 53.31 GiB\n"
       "32 rank 5: free after KV pool 11.87 GiB\n"
       "33 rank 6: KV cache tokens 2795207\n"
       "33 rank 6: K cache 53.31 GiB\n"
       "33 rank 6: V cache 53.31 GiB\n"
       "34 rank 1: free after KV pool 11.87 GiB\n"
       "35 rank 3: free after KV pool 11.87 GiB\n"
       "36 rank 6: free after KV pool 11.87 GiB\n"
       "37 rank 7: free before CUDA graphs 12.01 GiB\n"
       "38 rank 2: free before CUDA graphs 11.78 GiB\n"
       "39 rank 0: free before CUDA graphs 11.82 GiB\n"},
      {"sglang-h800-x16-deepseek-r1-2node",
       "start-up 1\n"
       "8 rank 1: free after weights (A) 36.48 GiB\n"
       "9 rank 0: free after weights (A) 36.51 GiB\n"
       "10 rank 0: free after KV pool 22.03 GiB\n"
       "11 rank 1: free after KV pool 22.00 GiB\n"
       "12 rank 3: free after KV pool 22.00 GiB\n"
       "13 rank 7: free after KV pool 22.00 GiB\n"
       "14 rank 6: free after KV pool 22.03 GiB\n"
       "15 rank 2: free after KV pool 22.03 GiB\n"
       "16 rank 4: free after KV pool 22.03 GiB\n"
       "17 rank 5: free after KV pool 22.00 GiB\n"},
      {"sglang-rocm-x8-deepseek-r1-dp8-negative-profiled-tokens",
       "start-up 1\n"
       "6 rank 0: free after weights (A) 21.73 GiB\n"
       "6 rank 0: weights took 166.59 GiB\n"
       "7 failed: not enough memory\n"
       "8 failed: not enough memory\n"
       "9 failed: not enough memory\n"
       "10 failed: not enough memory\n"
       "11 failed: not enough memory\n"
       "12 failed: not enough memory\n"
       "13 failed: not enough memory\n"
       "14 failed: not enough memory\n"},
      {"sglang-rtx4090-x1-olmocr-7b-qwen2vl-wsl",
       "start-up 1\n"
       "11 rank 0: free before weights (F) 22.46 GiB\n"},
      {"sglang-rtx4090-x2-qwen3.5-397b-a17b-fp8-cpuoffload",
       "start-up 1\n"
       "24 rank 0: free after weights (A) 19.08 GiB\n"
       "24 rank 0: weights took 3.76 GiB\n"
       "25 rank 1: free after weights (A) 19.08 GiB\n"
       "25 rank 1: weights took 3.76 GiB\n"
       "27 rank 0: state cache slots 82\n"
       "27 rank 0: conv state 0.13 GiB\n"
       "27 rank 0: SSM state 7.29 GiB\n"
       "28 rank 1: state cache slots 82\n"
       "28 rank 1: conv state 0.13 GiB\n"
       "28 rank 1: SSM state 7.29 GiB\n"
       "29 rank 0: KV cache tokens 580364\n"
       "29 rank 0: K cache 4.15 GiB\n"
       "29 rank 0: V cache 4.15 GiB\n"
       "30 rank 0: free after KV pool 4.02 GiB\n"
       "31 rank 1: KV cache tokens 580364\n"
       "31 rank 1: K cache 4.15 GiB\n"
       "31 rank 1: V cache 4.15 GiB\n"
       "32 rank 1: free after KV pool 4.02 GiB\n"
       "36 rank 0: max_running_requests 1\n"
       "36 rank 0: free when ready 3.63 GiB\n"},
      {"sglang-rtx5090-x2-nvfp4-hybrid-gdn-club3090",
       "start-up 1\n"
       "7 rank 0: KV cache tokens 454112\n"
       "7 rank 0: K cache 3.46 GiB\n"
       "7 rank 0: V cache 3.46 GiB\n"
       "8 rank 0: free after KV pool 8.40 GiB\n"
       "11 rank 1: KV cache tokens 454112\n"
       "11 rank 1: K cache 3.46 GiB\n"
       "11 rank 1: V cache 3.46 GiB\n"
       "12 rank 1: free after KV pool 7.63 GiB\n"},
      {"sglang-rtx3090-x2-gpt-oss-120b-cpu-offload-35gb", "start-up 1\n"},
      {"sglang-rtxpro6000-server-x1-gpt-oss-120b-swa-pool-sm120",
       "start-up 1\n"
       "12 -: KV cache tokens 318715\n"
       "12 -: sliding-window KV tokens 254972\n"
       "16 -: free after KV pool 12.33 GiB\n"
       "17 -: free before CUDA graphs 12.25 GiB\n"
       "20 -: CUDA graphs took 0.75 GiB\n"
       "20 -: free after CUDA graphs 11.49 GiB\n"},
      {"sglang-rtxpro6000-x4-glm-fp8-sm120-init",
       "start-up 1\n"
       "15 rank 3: distributed init took 0.39 GiB\n"
       "16 rank 0: distributed init took 0.39 GiB\n"
       "17 rank 2: distributed init took 0.39 GiB\n"
       "18 rank 1: distributed init took 0.39 GiB\n"
       "19 rank 1: free before weights (F) 94.01 GiB\n"
       "20 rank 0: free before weights (F) 94.01 GiB\n"},
      {"sglang-rtxpro6000-x4-kimi-k2-thinking-ktransformers-shm-crash",
       "start-up 1\n"
       "13 rank 3: CUDA graphs took 0.04 GiB\n"
       "13 rank 3: free after CUDA graphs 1.47 GiB\n"
       "14 rank 2: CUDA graphs took 0.04 GiB\n"
       "14 rank 2: free after CUDA graphs 1.47 GiB\n"
       "15 rank 0: CUDA graphs took 0.05 GiB\n"
       "15 rank 0: free after CUDA graphs 1.46 GiB\n"
       "16 rank 1: CUDA graphs took 0.04 GiB\n"
       "16 rank 1: free after CUDA graphs 1.47 GiB\n"},
      {"sglang-rtxpro6000-x8-glm-5.2-nvfp4-prefill-graph",
       "start-up 1\n"
       "8 rank 2: free before weights (F) 93.30 GiB\n"},
      {"sglang-unknown-x4-mimo-v2-flash-tp4-swa-pool",
       "start-up 1\n"
       "7 rank 2: KV cache tokens 375360\n"
       "7 rank 2: sliding-window KV tokens 300288\n"
       "8 rank 1: KV cache tokens 375360\n"
       "8 rank 1: sliding-window KV tokens 300288\n"
       "9 rank 0: KV cache tokens 375360\n"
       "9 rank 0: sliding-window KV tokens 300288\n"
       "10 rank 3: KV cache tokens 375360\n"
       "10 rank 3: sliding-window KV tokens 300288\n"},
      {"sglang-unknown-x4-qwen3-next-80b-a3b-fp8-deepep-dp4",
       "start-up 1\n"
       "10 rank 2: free after KV pool 34.12 GiB\n"
       "11 rank 0: KV cache tokens 2786325\n"
       "11 rank 0: K cache 31.89 GiB\n"
       "11 rank 0: V cache 31.89 GiB\n"
       "12 rank 1: KV cache tokens 2786325\n"
       "12 rank 1: K cache 31.89 GiB\n"
       "12 rank 1: V cache 31.89 GiB\n"
       "13 rank 0: free after KV pool 34.15 GiB\n"
       "14 rank 1: free after KV pool 34.12 GiB\n"
       "15 rank 3: KV cache tokens 2786325\n"
       "15 rank 3: K cache 31.89 GiB\n"
       "15 rank 3: V cache 31.89 GiB\n"
       "16 rank 3: free after KV pool 34.27 GiB\n"
       "19 rank 1: free before CUDA graphs 34.05 GiB\n"
       "20 rank 0: free before CUDA graphs 34.08 GiB\n"},
      {"sglang-unknown-x8-glm-5.2-fp8-pd-nextn-draft-load",
       "start-up 1\n"
       "7 rank 0: draft weights took 1.00 GiB\n"
       "8 rank 7: draft weights took 1.00 GiB\n"
       "9 rank 3: draft weights took 1.00 GiB\n"
       "10 rank 4: draft weights took 1.00 GiB\n"
       "11 rank 1: draft weights took 1.00 GiB\n"
       "12 rank 2: draft weights took 1.00 GiB\n"
       "13 rank 6: draft weights took 1.00 GiB\n"},
      {"sglang-unknown-x8-kimi-k2-instruct-0905-tp8-piecewise-kv-shrink",
       "start-up 1\n"
       "7 rank 5: KV cache tokens 8050\n"
       "7 rank 5: KV cache (MLA) 0.53 GiB\n"},
      {"sglang-unknown-x1-qwen3-8b-fp8-capture-oom",
       "start-up 1\n"
       "7 -: free after weights (A) 21.96 GiB\n"
       "7 -: weights took 8.81 GiB\n"
       "8 -: KV cache tokens 132681\n"
       "8 -: K cache 9.11 GiB\n"
       "8 -: V cache 9.11 GiB\n"
       "9 -: free after KV pool 3.46 GiB\n"
       "10 -: free before CUDA graphs 2.85 GiB\n"
       "13 failed: error\n"},
      {"sglang-unknown-x4-r1-distill-qwen-7b-pp2-dp2-gpu-id-overlap",
       "start-up 1\n"
       "17 -: free after weights (A) 14.53 GiB\n"
       "17 -: weights took 7.21 GiB\n"
       "18 -: free before CUDA graphs 8.73 GiB\n"},
      {"sglang-mi355x-x1-qwen3-30b-a3b-2507-aiter-kv-overalloc",
       "start-up 1\n"
       "7 -: KV cache tokens 2227073\n"
       "7 -: K cache 101.95 GiB\n"
       "7 -: V cache 101.95 GiB\n"
       "8 -: free after KV pool 60.65 GiB\n"
       "start-up 2\n"
       "11 -: free after weights (A) 230.20 GiB\n"
       "11 -: weights took 56.98 GiB\n"
       "15 -: KV cache tokens 1669816\n"
       "15 -: K cache 76.44 GiB\n"
       "15 -: V cache 76.44 GiB\n"
       "16 -: free after KV pool 74.01 GiB\n"},
      {"sglang-rtx3090-x8-gemma4-assistant-draft-tp4-dp2",
       "start-up 1\n"
       "11 -: draft weights took 0.29 GiB\n"},
      {"sglang-rtx6000ada-x4-qwen3-30b-a3b-tp4",
       "start-up 1\n"
       "28 rank 0: distributed init took 0.19 GiB\n"
       "29 rank 0: free before weights (F) 46.74 GiB\n"},
      {"sglang-b200-x4-mimo-v2-flash-fp8-swa",
       "start-up 1\n"
       "9 rank 2: KV cache tokens 1496958\n"
       "9 rank 2: sliding-window KV tokens 1496958\n"
       "11 rank 0: KV cache tokens 1496958\n"
       "11 rank 0: sliding-window KV tokens 1496958\n"
       "12 rank 2: free after KV pool 22.56 GiB\n"
       "14 rank 0: free after KV pool 22.59 GiB\n"
       "15 rank 1: KV cache tokens 1496958\n"
       "15 rank 1: sliding-window KV tokens 1496958\n"
       "16 rank 1: free after KV pool 22.56 GiB\n"
       "18 rank 3: KV cache tokens 1496958\n"
       "18 rank 3: sliding-window KV tokens 1496958\n"
       "19 rank 3: free after KV pool 22.71 GiB\n"
       "20 rank 0: free before CUDA graphs 22.52 GiB\n"},
      {"sglang-b200-x4-qwen3-dense-runai-streamer",
       "start-up 1\n"
       "8 rank 0: free after weights (A) 160.78 GiB\n"
       "8 rank 0: weights took 15.50 GiB\n"
       "10 rank 1: KV cache tokens 2206208\n"
       "10 rank 1: K cache 67.33 GiB\n"
       "10 rank 1: V cache 67.33 GiB\n"
       "11 rank 1: free after KV pool 25.37 GiB\n"
       "12 rank 2: KV cache tokens 2206208\n"
       "12 rank 2: K cache 67.33 GiB\n"
       "12 rank 2: V cache 67.33 GiB\n"
       "13 rank 2: free after KV pool 25.37 GiB\n"
       "14 rank 0: KV cache tokens 2206208\n"
       "14 rank 0: K cache 67.33 GiB\n"
       "14 rank 0: V cache 67.33 GiB\n"
       "15 rank 0: free after KV pool 25.40 GiB\n"
       "16 rank 3: KV cache tokens 2206208\n"
       "16 rank 3: K cache 67.33 GiB\n"
       "16 rank 3: V cache 67.33 GiB\n"
       "17 rank 3: free after KV pool 25.52 GiB\n"},
      {"sglang-h100-x8-llama4-scout-17b-16e-oom-load",
       "start-up 1\n"
       "7 -: total GPU memory 79.10 GiB\n"
       "7 failed: out of memory, asked 80.0400 GiB, free 20.0800 GiB\n"},
      {"sglang-mi300x-x8-deepseek-v3-rocm-load-weights",
       "start-up 1\n"
       "6 rank 6: free after weights (A) 104.22 GiB\n"
       "7 rank 7: free after weights (A) 104.24 GiB\n"
       "8 rank 0: free after weights (A) 104.81 GiB\n"
       "9 rank 2: free after weights (A) 103.97 GiB\n"
       "10 rank 5: free after weights (A) 104.26 GiB\n"
       "11 rank 1: free after weights (A) 103.98 GiB\n"},
      {"sglang-mi308x-x8-deepseek-r1-load-weights",
       "start-up 1\n"
       "6 rank 5: free after weights (A) 103.71 GiB\n"
       "6 rank 5: weights took 81.66 GiB\n"
       "7 rank 3: free after weights (A) 104.06 GiB\n"
       "7 rank 3: weights took 81.66 GiB\n"
       "8 rank 2: free after weights (A) 103.63 GiB\n"
       "8 rank 2: weights took 81.66 GiB\n"
       "9 rank 7: free after weights (A) 103.77 GiB\n"
       "9 rank 7: weights took 81.66 GiB\n"
       "10 rank 0: free after weights (A) 103.67 GiB\n"
       "10 rank 0: weights took 81.66 GiB\n"},
      {"sglang-mi30x-x4-qwen3-next-80b-a3b-rocm",
       "start-up 1\n"
       "8 rank 1: free after weights (A) 152.85 GiB\n"
       "8 rank 1: weights took 37.41 GiB\n"
       "9 rank 0: free after weights (A) 152.87 GiB\n"
       "9 rank 0: weights took 37.41 GiB\n"
       "10 rank 2: free after weights (A) 152.87 GiB\n"
       "10 rank 2: weights took 37.41 GiB\n"
       "11 rank 3: free after weights (A) 152.91 GiB\n"
       "11 rank 3: weights took 37.41 GiB\n"
       "13 rank 0: state cache slots 2914\n"
       "13 rank 0: conv state 1.20 GiB\n"
       "13 rank 0: SSM state 51.24 GiB\n"
       "14 rank 1: state cache slots 2914\n"
       "14 rank 1: conv state 1.20 GiB\n"
       "14 rank 1: SSM state 51.24 GiB\n"
       "15 rank 3: state cache slots 2914\n"
       "15 rank 3: conv state 1.20 GiB\n"
       "15 rank 3: SSM state 51.24 GiB\n"
       "16 rank 2: state cache slots 2914\n"
       "16 rank 2: conv state 1.20 GiB\n"
       "16 rank 2: SSM state 51.24 GiB\n"
       "17 rank 0: KV cache tokens 5091015\n"
       "17 rank 0: K cache 29.13 GiB\n"
       "17 rank 0: V cache 29.13 GiB\n"
       "18 rank 1: KV cache tokens 5091015\n"
       "18 rank 1: K cache 29.13 GiB\n"
       "18 rank 1: V cache 29.13 GiB\n"},
      {"sglang-rtx5880ada-x4-qwen3-next-80b-a3b",
       "start-up 1\n"
       "6 rank 0: free after weights (A) 9.29 GiB\n"
       "6 rank 0: weights took 37.41 GiB\n"
       "11 rank 1: conv state 0.02 GiB\n"
       "11 rank 1: SSM state 0.86 GiB\n"
       "12 rank 0: conv state 0.02 GiB\n"
       "12 rank 0: SSM state 0.86 GiB\n"},
      {"sglang-unknown-x2-qwen3-30b-a3b-fp8-piecewise-cudagraph",
       "start-up 1\n"
       "10 rank 1: free after weights (A) 79.18 GiB\n"
       "10 rank 1: weights took 14.60 GiB\n"
       "11 rank 0: free after weights (A) 79.09 GiB\n"
       "11 rank 0: weights took 14.60 GiB\n"
       "13 rank 1: KV cache tokens 1443316\n"
       "13 rank 1: K cache 33.03 GiB\n"
       "13 rank 1: V cache 33.03 GiB\n"
       "14 rank 1: free after KV pool 12.35 GiB\n"
       "15 rank 0: KV cache tokens 1443316\n"
       "15 rank 0: K cache 33.03 GiB\n"
       "15 rank 0: V cache 33.03 GiB\n"
       "16 rank 0: free after KV pool 12.27 GiB\n"
       "17 rank 0: free before CUDA graphs 12.17 GiB\n"
       "18 rank 1: free before CUDA graphs 12.26 GiB\n"},
      {"sglang-unknown-x2-qwen3-eagle3-mtp",
       "start-up 1\n"
       "28 rank 0: free after weights (A) 13.47 GiB\n"
       "28 rank 0: weights took 30.59 GiB\n"
       "29 rank 0: KV cache tokens 42632\n"
       "29 rank 0: K cache 2.60 GiB\n"
       "29 rank 0: V cache 2.60 GiB\n"},
      {"sglang-unknown94gb-x4-qwen3-next-80b-a3b-thinking",
       "start-up 1\n"
       "10 rank 0: distributed init took 1.13 GiB\n"
       "11 rank 0: free before weights (F) 93.46 GiB\n"
       "17 rank 0: free after KV pool 13.12 GiB\n"
       "18 rank 2: KV cache tokens 2896645\n"
       "18 rank 2: K cache 16.57 GiB\n"
       "18 rank 2: V cache 16.57 GiB\n"
       "23 rank 0: free before CUDA graphs 13.02 GiB\n"},
  };
  return kLogs;
}

TEST(CorpusSglang, EveryLogReadsAsReviewed) { check_corpus(LogEngine::kSglang, "sglang-", logs()); }

}  // namespace
}  // namespace gpumem
