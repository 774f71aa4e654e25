# source: https://github.com/QwenLM/Qwen3-VL/issues/1746
# engine: sglang
# gpu: h800-sxm-80gb
# gpu-note: the reporter says 8 H800 in a comment
# forms: multi-line
# outcome: refused-command
# note: not stated (Nov 2025); Qwen/Qwen3-VL-235B-A22B-Instruct launched through sglang_router.launch_server with --dp-size 8 (one full BF16 replica per GPU); title (Chinese): "sglang deployment blows up GPU memory" (OOM). Maintainer wulipc suggests first trying the README command `python -m sglang.launch_server --model-path Qwen/Qwen3-VL-235B-A22B-Instruct --host 0.0.0.0 --port 22002 --tp 8`. Note the trailing backslash on the last line, kept as typed (tab indentation as posted).
python3 -m sglang_router.launch_server \
	--model-path Qwen/Qwen3-VL-235B-A22B-Instruct \
	--dp-size 8 \
	--host 0.0.0.0 \
	--port 8001 \
	--router-worker-startup-timeout-secs 3600 \
	--router-prometheus-port 29000 \
