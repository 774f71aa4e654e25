#!/usr/bin/env bash
# Fits the CUDA context of the GPUs no probe ran on to the public start-up logs of
# tests/data/engine-logs (gpumem calibrate --from-logs; calib/log_fit.h says what is fitted and
# why), and rewrites model/calibration/<gpu>-logs.yaml and reports/calibration/<gpu>-logs.md.
# Only GPUs with at least one start-up whose figure the context alone moves (one GPU, or
# SGLang's distributed-init usage printed beside F) are calibrated.
#
# The same fit on the H200 and the H100, whose contexts the probe measured, is the method's
# check: its files go to reports/calibration/logs-check/ (not model/, so no simulation uses
# them) and their context is compared with the probe's in model/calibration/README.md.
#
# Held out, with the reason:
#  - sglang-rtx4090-x1-olmocr-7b-qwen2vl-wsl: WSL, whose driver holds more of the GPU than
#    Linux's (0.6 GiB more in use before the weights than the Linux log of the same card).
#  - vllm-rtx4090-x1-qwen3.6-27b-int4-windows-desktop-free-check: Windows, a desktop's
#    programs on the same card (the post names Firefox and VS Code).
#  - vllm-h100-x1-sleep-mode-profiling-gross-error: two vLLM instances share the GPU; the
#    sleeping one still holds memory when the second starts.
# Usage: scripts/calibrate-from-logs.sh [path/to/gpumem]   (default build/src/cli/gpumem)
set -euo pipefail
cd "$(dirname "$0")/.."
gpumem="${1:-build/src/cli/gpumem}"
export GPUMEM_MODEL_DIR=model
# Yearless log dates are read against a fixed day (scripts/explain-logs.sh says why).
export GPUMEM_TODAY=2026-12-07
logs=tests/data/engine-logs
hold_out=(sglang-rtx4090-x1-olmocr-7b-qwen2vl-wsl
  vllm-rtx4090-x1-qwen3.6-27b-int4-windows-desktop-free-check
  vllm-h100-x1-sleep-mode-profiling-gross-error)
for gpu in l4 rtx-4090 rtx-6000-ada; do
  "$gpumem" calibrate --from-logs "$logs" --gpu "$gpu" --hold-out "${hold_out[@]}" \
    -o "model/calibration/$gpu-logs.yaml" --report-dir reports/calibration
done
mkdir -p reports/calibration/logs-check
for gpu in h200-sxm-141gb h100-sxm-80gb; do
  "$gpumem" calibrate --from-logs "$logs" --gpu "$gpu" --hold-out "${hold_out[@]}" \
    -o "reports/calibration/logs-check/$gpu-logs.yaml" \
    --report-dir reports/calibration/logs-check
done
