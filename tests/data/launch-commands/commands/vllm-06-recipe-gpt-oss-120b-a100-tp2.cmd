# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: a100-80gbx2
# forms: vllm-serve, long-flag
# outcome: starts
vllm serve openai/gpt-oss-120b --tensor-parallel-size 2
