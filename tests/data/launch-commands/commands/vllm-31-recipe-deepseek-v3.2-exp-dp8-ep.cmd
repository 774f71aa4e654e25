# source: https://github.com/vllm-project/recipes/blob/fc8074b4e3c9761bca2b8f1d8ee7c05c9a1d55fd/DeepSeek/DeepSeek-V3_2-Exp.md
# engine: vllm
# gpu: h200x8
# forms: vllm-serve, -dp, no-flag
# outcome: starts
vllm serve deepseek-ai/DeepSeek-V3.2-Exp -dp 8 --enable-expert-parallel
