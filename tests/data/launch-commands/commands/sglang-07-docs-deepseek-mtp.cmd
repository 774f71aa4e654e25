# source: https://github.com/sgl-project/sglang/blob/0f4513c2f46be5ae1e0d9bf0a8f7b5471a8b3d16/docs/basic_usage/deepseek_v3.md
# engine: sglang
# gpu: h200x8
# gpu-note: the page's "H200 TP8 setting"
# forms: python3-m-sglang.launch_server, speculative, multi-line
# outcome: refused-model
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-V3-0324 \
  --speculative-algorithm EAGLE \
  --trust-remote-code \
  --tp 8
