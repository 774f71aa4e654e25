# source: https://github.com/vllm-project/recipes/blob/10b3f96daf42009b447d257627e2ff8980b3345d/DeepSeek/DeepSeek-V3.md
# engine: vllm
# gpu: h200x8
# forms: vllm-serve, underscore-flag, multi-line
# outcome: starts
vllm serve deepseek-ai/DeepSeek-R1-0528 \
  --trust-remote-code \
  --tensor-parallel-size 8 \
  --enable_expert_parallel
