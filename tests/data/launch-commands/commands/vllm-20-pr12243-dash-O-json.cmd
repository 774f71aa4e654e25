# source: https://github.com/vllm-project/vllm/pull/12243
# engine: vllm
# gpu: h100
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve, -O, json-value (Python-literal quotes)
# outcome: refused-flag
vllm serve meta-llama/Meta-Llama-3-8B -O "{'level': 3, 'compile_sizes':['cudagraph', 360], 'capture_sizes': [1, 2, 4]}"
