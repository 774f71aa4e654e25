# source: vllm-project/recipes/models/Qwen/Qwen3.8-Flash-Next.yaml@1444b59bf851cf701e92f4eb8ce15e0bae2b3d1d (guide section "NVFP4 on 4x RTX 5090 (consumer Blackwell, sm120)")
# engine: vllm
# gpu: rtx-5090
# forms: docker-run, multi-line, flag=value, json-value
# outcome: refused-model
# note: image vllm/vllm-openai:qwen38-flash-next (recipe min_vllm_version 0.29.0, nightly required); RadixArk/Qwen3.8-Flash-Next-NVFP4 (modelopt NVFP4, FP8 N-gram table with PLE CPU offload), TP4 + expert parallel, MTP 3 tokens, FULL_DECODE_ONLY cudagraphs; recipe says "Verified" and reports 389,084-token KV cache, ~169-203 tok/s decode; --disable-custom-all-reduce needed else CUDA graph capture dies with custom_all_reduce.cuh:164 'invalid argument'. The recipe's 2-space YAML block indent was removed.
docker run --gpus all --cap-add=SYS_PTRACE --ipc=host -p 8000:8000 \
  -e VLLM_PLE_CPU_OFFLOAD=1 \
  -e VLLM_PLE_FORCE_FP8=1 \
  -e VLLM_USE_DEEP_GEMM=0 -e VLLM_MOE_USE_DEEP_GEMM=0 \
  -e PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
  vllm/vllm-openai:qwen38-flash-next \
  --model RadixArk/Qwen3.8-Flash-Next-NVFP4 \
  --quantization modelopt \
  --tensor-parallel-size 4 \
  --enable-expert-parallel \
  --disable-custom-all-reduce \
  --max-model-len 262144 \
  --enable-prefix-caching \
  --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[4,8,12,16,24,32]}' \
  --speculative-config '{"method":"mtp","num_speculative_tokens":3}' \
  --enable-auto-tool-choice --tool-call-parser qwen3_xml \
  --reasoning-parser qwen3
