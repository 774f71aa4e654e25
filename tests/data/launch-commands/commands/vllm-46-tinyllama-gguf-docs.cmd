# source: https://github.com/vllm-project/vllm/pull/8618 (review thread on docs/source/quantization/gguf.rst, russellb, 2024-09-19)
# engine: vllm
# gpu: rtx-4090
# gpu-note: chosen: the document names no GPU
# forms: vllm-serve, local-path-model
# outcome: refused-model
# note: not stated (Sept 2024, vLLM ~0.6.1); TinyLlama-1.1B-Chat Q4_K_M GGUF (local file) with base-model tokenizer, as proposed in the new GGUF docs. WRONG AS TYPED at that time: reviewer gets "vllm serve: error: the following arguments are required: model_tag" because `vllm serve` needed the model positionally, not via --model. Doc's leading "$ " prompt dropped.
vllm serve --model ./tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf --tokenizer TinyLlama/TinyLlama-1.1B-Chat-v1.0
