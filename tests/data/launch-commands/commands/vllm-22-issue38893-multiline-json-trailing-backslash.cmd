# source: https://github.com/vllm-project/vllm/issues/38893
# engine: vllm
# gpu: h100x2
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve, json-value spanning lines, trailing-backslash, multi-line
# outcome: refused-model
vllm serve google/gemma-4-26B-A4B-it \
  --tensor-parallel-size 2 \
  --speculative-config '{
    "model": "RedHatAI/gemma-4-26B-A4B-it-speculator.eagle3",
    "num_speculative_tokens": 3,
    "method": "eagle3"
  }' \
  --max-num-seqs 64 \
