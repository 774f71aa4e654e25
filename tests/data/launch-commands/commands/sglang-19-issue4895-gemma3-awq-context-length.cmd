# source: https://github.com/sgl-project/sglang/issues/4895
# engine: sglang
# gpu: rtx-4090
# gpu-note: chosen: the thread names no GPU
# forms: python3-m-sglang.launch_server, --context-length, local-path-model
# outcome: refused-model
python3 -m sglang.launch_server --model-path  /llm/model/google/gemma-3-27b-it-int4-awq/ --host 0.0.0.0 --port 30000 --trust-remote-code --context-length 4096
