# source: https://github.com/vllm-project/recipes/blob/07a41636fa3138153f4003433189100bbc7f1404/Llama/Llama3.3-70B.md
# engine: vllm
# gpu: h100x1
# gpu-note: the recipe's Hopper branch; H100 chosen among Hopper GPUs
# forms: vllm-serve, config-file, trailing-ampersand, multi-line
# outcome: refused-model
# note: launch_server.sh as it runs on Hopper: $DTYPE is FP8 and ${YAML_CONFIG} Llama3.3_Hopper.yaml (the recipe's file, in ../config/)
vllm serve nvidia/Llama-3.3-70B-Instruct-FP8 \
  --config Llama3.3_Hopper.yaml \
  --tensor-parallel-size 1 \
  --max-num-seqs 512 \
  --max-model-len 10240 &
