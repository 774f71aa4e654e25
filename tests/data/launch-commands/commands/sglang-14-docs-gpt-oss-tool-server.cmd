# source: https://github.com/sgl-project/sglang/blob/0351c1fafe4c53c91c331dea205af48b018af559/docs/basic_usage/gpt_oss.md
# engine: sglang
# gpu: h100x2
# gpu-note: chosen: the page names no GPU
# forms: python3-m-sglang.launch_server, multi-line
# outcome: starts
python3 -m sglang.launch_server \
  --model-path openai/gpt-oss-120b \
  --tool-server demo \
  --tp 2
