# source: https://github.com/sgl-project/sglang/issues/2587
# engine: sglang
# gpu: h200x8
# gpu-note: the maintainer's "8 * H200"
# forms: python3-m-sglang.launch_server, dp-attention
# outcome: refused-model
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3-Base --enable-dp-attention --tp 8 --trust-remote-code
