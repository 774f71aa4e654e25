# source: https://github.com/vllm-project/recipes/blob/1b65784a65e97271d0bc2f00d48453884bddc02d/DeepSeek/DeepSeek-V3_2.md
# engine: vllm
# gpu: h200x8
# forms: env-prefix, vllm-serve, repeated-subcommand, multi-line
# note: the recipe repeats "serve": vLLM takes the second as the model tag and refuses the repository id after it
# outcome: refused-command
VLLM_MOE_USE_DEEP_GEMM=0 vllm serve serve deepseek-ai/DeepSeek-V3.2 \
   --tensor-parallel-size 8 \
   --tokenizer-mode deepseek_v32 \
   --tool-call-parser deepseek_v32 \
   --reasoning-parser deepseek_v3
