# source: https://github.com/vllm-project/vllm/pull/22721
# engine: vllm
# gpu: b200x8
# gpu-note: chosen: the comment runs on ROCm (AMD MI300-series), not in the catalog; the B200 is the catalog GPU closest to their 192 GB
# forms: env-prefix, vllm-serve, json-value, multi-line
# outcome: refused-flag
# note: the script sets MODEL=Qwen/Qwen3-8B on the line before; $MODEL is written out
VLLM_USE_V1=1 VLLM_ROCM_USE_AITER=1 \
vllm serve Qwen/Qwen3-8B \
--tensor-parallel-size 8 \
--max-num-seqs 1024 \
--kv-cache-dtype fp8 \
--max-num-batched-tokens 32768 \
--disable-log-requests \
--compilation-config '{"cudagraph_mode": "FULL"}' \
--trust-remote-code
