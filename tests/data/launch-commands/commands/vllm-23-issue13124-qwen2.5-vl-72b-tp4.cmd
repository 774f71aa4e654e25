# source: https://github.com/vllm-project/vllm/issues/13124
# engine: vllm
# gpu: a100-80gbx4
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve, local-path-model
# outcome: refused-model
vllm serve /home/lzh/llm_model/Qwen/Qwen2___5-VL-72B-Instruct --dtype auto --host 127.0.0.1 --port 6006 --tensor-parallel-size 4
