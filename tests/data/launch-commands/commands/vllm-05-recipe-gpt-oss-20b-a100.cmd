# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: a100-80gb
# gpu-note: the recipe's "single A100"; the 80 GB part chosen
# forms: vllm-serve
# outcome: starts
vllm serve openai/gpt-oss-20b
