# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: a100-80gbx8
# forms: python3-m-sglang.launch_server, --quantization
# outcome: refused-model
python3 -m sglang.launch_server --model cognitivecomputations/DeepSeek-R1-AWQ --tp 8 --trust-remote-code --quantization moe_wna16
