# source: https://github.com/vllm-project/recipes/blob/0d5956ebf7b1b326373e7e3b1aded8dd9319bf02/Qwen/Qwen3.md
# engine: vllm
# gpu: b200x4
# gpu-note: chosen: the recipe runs on 4 of 8 AMD MI300X (HIP_VISIBLE_DEVICES), not in the catalog; the B200 is the catalog GPU closest to its 192 GB
# forms: env-prefix, quoted-env-value, vllm-serve, -tp, no-flag, multi-line
# outcome: refused-flag
HIP_VISIBLE_DEVICES="4,5,6,7" \
VLLM_USE_V1=1 \
VLLM_ROCM_USE_AITER=1 \
VLLM_ROCM_USE_AITER_MHA=0 \
VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1 \
VLLM_USE_TRITON_FLASH_ATTN=0 \
SAFETENSORS_FAST_GPU=1  \
vllm serve Qwen/Qwen3-235B-A22B-FP8 \
--trust-remote-code \
-tp 4 \
--disable-log-requests \
--swap-space 16 \
--distributed-executor-backend mp \
--max-num-batched-tokens 32768 \
--max-model-len 32768 \
--no-enable-prefix-caching \
--gpu-memory-utilization 0.8
