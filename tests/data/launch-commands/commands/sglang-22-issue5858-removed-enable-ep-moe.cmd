# source: https://github.com/sgl-project/sglang/issues/5858
# engine: sglang
# gpu: h200x8
# gpu-note: chosen: the tracker names no GPU
# forms: python3-m-sglang.launch_server, removed-flag
# outcome: refused-flag
python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 8  --reasoning-parser qwen3 --enable-ep-moe
