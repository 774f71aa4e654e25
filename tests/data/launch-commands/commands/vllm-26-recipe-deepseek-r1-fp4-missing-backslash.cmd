# source: https://github.com/vllm-project/recipes/blob/10b3f96daf42009b447d257627e2ff8980b3345d/DeepSeek/DeepSeek-V3.md
# engine: vllm
# gpu: b200x4
# forms: env-prefix, vllm-serve, missing-backslash (the last line is a second command), multi-line
# outcome: refused-model
CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve nvidia/DeepSeek-R1-FP4 \
  --trust-remote-code \
  --tensor-parallel-size 4
  --enable_expert_parallel
