#!/usr/bin/env bash
# Fits the H100 (80GB HBM3, SXM) constants to the committed one-GPU H100 probe traces and
# rewrites model/calibration/h100-sxm-80gb.yaml (gpumem-probe's raw CUDA process) and
# h100-sxm-80gb-torch.yaml (the PyTorch process), with reports/calibration/h100x1{,-torch}.md.
# The scenarios the H200's raw fit holds out (scripts/calibrate-h200.sh) are held out of both
# fits. One GPU shows no NCCL communicator: the raw fit starts from the H200's constants, so
# the NCCL ones stay those its two-GPU traces fitted (the same sm_90 kernel image of the same
# NCCL 2.28.9). PyTorch's stream pool, ATen module and first capture are kept as measured on
# the H100, one per fresh process (reports/probe/h100x1/torch-facts/torch_facts.json:
# 73,400,320, 96,468,992 and 2,097,152 B, as on the H200), not fitted.
set -euo pipefail
cd "$(dirname "$0")/.."
hold_out=(h100x1-gpt-oss-20b h100x1-qwen2.5-7b-fp8kv h100x1-llama8b-eagle3 h100x1-qwen3-32b
  h100x1-llama8b-vllm h100x1-qwen3-8b-vllm h100x1-qwen3.6-27b h100x1-qwen3.6-27b-vllm
  h100x1-gemma4-26b-vllm h100x1-gemma4-26b-vllm-images)
build/src/cli/gpumem calibrate reports/probe/h100x1 \
  -o model/calibration/h100-sxm-80gb.yaml --report-dir reports/calibration \
  --start-from h200-sxm-141gb \
  --hold-out "${hold_out[@]}"
build/src/cli/gpumem calibrate reports/probe/h100x1 --probe torch \
  -o model/calibration/h100-sxm-80gb-torch.yaml --report-dir reports/calibration \
  --hold-out "${hold_out[@]}" \
  --measured pytorch_stream_pool=70MiB pytorch_aten_module=92MiB pytorch_first_capture=2MiB
