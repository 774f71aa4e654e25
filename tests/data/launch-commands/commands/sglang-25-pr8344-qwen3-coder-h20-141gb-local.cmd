# source: https://github.com/sgl-project/sglang/pull/8344
# engine: sglang
# gpu: h20-141gbx8
# gpu-note: the thread's H20-3e is the 141 GB H20
# forms: python3-m-sglang.launch_server, local-path-model
# outcome: refused-model
python3 -m sglang.launch_server --model /data/Qwen3-Coder-480B-A35B-Instruct-FP8  --tp 8 --trust-remote-code --port 30003  --host 0.0.0.0 --mem-fraction-static 0.7
