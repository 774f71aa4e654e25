# source: https://github.com/vllm-project/vllm/pull/16729
# engine: vllm
# gpu: h100
# gpu-note: chosen: the docs name no GPU
# forms: env-prefix, vllm-serve, json-value (Python-literal quotes)
# outcome: starts
VLLM_USE_V1=1 vllm serve meta-llama/Llama-3.2-1B --compilation-config "{'cudagraph_capture_sizes': [1, 2, 4, 8]}"
