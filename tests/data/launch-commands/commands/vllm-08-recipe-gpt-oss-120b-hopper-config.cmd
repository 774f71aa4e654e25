# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: h100x1
# gpu-note: the recipe's Hopper branch; H100 chosen among Hopper GPUs
# forms: vllm-serve, config-file, trailing-ampersand, multi-line
# outcome: starts
# note: launch_server.sh as it runs on Hopper: ${YAML_CONFIG} is GPT-OSS_Hopper.yaml (the recipe's file, in ../config/)
vllm serve openai/gpt-oss-120b \
  --config GPT-OSS_Hopper.yaml \
  --tensor-parallel-size 1 &
