#!/usr/bin/env bash
# Fits the H200 constants to every committed H200 probe trace and rewrites
# model/calibration/h200-sxm-141gb.yaml and reports/calibration/h200x{1,2}.md.
# The held-out scenarios are never fitted on: they are how the fit is judged.
set -euo pipefail
cd "$(dirname "$0")/.."
build/src/cli/gpumem calibrate reports/probe/h200x1 reports/probe/h200x2 \
  -o model/calibration/h200-sxm-141gb.yaml --report-dir reports/calibration \
  --hold-out h200x1-gpt-oss-20b h200x1-qwen2.5-7b-fp8kv h200x2-llama70b-tp2 \
  h200x2-llama8b-tp2-ch8 h200x2-llama8b-tp2-bslist h200x2-qwen3-30b-a3b-tp2 \
  h200x2-qwen3-8b-tp2-fp8kv h200x1-llama8b-eagle3 h200x2-mixtral-tp2 \
  h200x2-llama8b-tp2-ch4-buffsize2m h200x1-qwen3-32b h200x2-gpt-oss-120b-tp2 \
  h200x1-llama8b-vllm h200x1-qwen3-8b-vllm h200x2-llama8b-vllm-tp2 \
  h200x2-qwen3-30b-a3b-vllm-tp2 h200x2-qwen3-30b-a3b-vllm021-tp2 \
  h200x1-qwen3.6-27b h200x1-qwen3.6-27b-vllm
