# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: h100x8
# forms: vllm-serve, underscore-flag, no-flag, multi-line
# outcome: starts
vllm serve openai/gpt-oss-120b \
  --tensor_parallel_size 8 \
  --max-model-len 131072 \
  --max-num-batched-tokens 10240 \
  --max-num-seqs 128 \
  --gpu-memory-utilization 0.85 \
  --no-enable-prefix-caching
