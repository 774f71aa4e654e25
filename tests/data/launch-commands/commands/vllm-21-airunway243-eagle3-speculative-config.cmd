# source: https://github.com/ai-runway/airunway/issues/243
# engine: vllm
# gpu: h100
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve, json-value, multi-line
# outcome: refused-model
vllm serve RedHatAI/Qwen3-8B-FP8-dynamic \
  --tensor-parallel-size 1 \
  --gpu-memory-utilization 0.9 \
  --speculative-config '{"model": "RedHatAI/Qwen3-8B-speculator.eagle3", "num_speculative_tokens": 5, "method": "eagle3"}'
