# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: h200x8
# forms: python3-m-sglang.launch_server, --model alias, --tp prefix
# outcome: starts
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code
