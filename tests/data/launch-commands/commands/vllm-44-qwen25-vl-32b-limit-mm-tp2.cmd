# source: https://github.com/vllm-project/vllm/issues/15737
# engine: vllm
# gpu: a100-80gb
# gpu-note: chosen: the thread names no GPU; the count comes from --tensor_parallel_size 2
# forms: python-m-vllm, underscore-flag
# outcome: refused-model
# note: 0.8.2 (from the server log); Qwen2.5-VL-32B-Instruct (local dir) with --limit-mm-per-prompt image=5,video=5 (key=value form; newer vLLM expects JSON); usage question, log shows startup (the args Namespace oddly reports port=8001 although --port 8000 was typed).
python -m vllm.entrypoints.openai.api_server --model Qwen2.5-VL-32B-Instruct --port 8000 --host 0.0.0.0 --dtype bfloat16 --tensor_parallel_size 2 --limit-mm-per-prompt image=5,video=5
