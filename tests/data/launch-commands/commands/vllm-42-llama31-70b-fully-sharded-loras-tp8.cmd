# source: https://github.com/vllm-project/vllm/issues/20944
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU; the count comes from -tp 8
# forms: vllm-serve, -tp
# outcome: refused-flag
# note: not stated (July 2025, V1 engine; reporter says the same flag works on V0); meta-llama/Llama-3.1-70B with a rank-8 LoRA adapter and --fully-sharded-loras; "--fully-sharded-loras doesn't work on V1" (error stack in a gist); maintainer jeejeelee suggests the LoRA rank is too small and to try a larger rank such as 64. Posted inside a ```python fence.
vllm serve meta-llama/Llama-3.1-70B -tp 8 --chat-template ./template.jinja --fully-sharded-loras --no-enable-prefix-caching --enable-lora --max-lora-rank 8 --lora-modules meta-llama/Llama-3.1-70B-lora-8-0=/tmp/adapters/meta-llama/Llama-3.1-70B/lora-8-0
