# source: https://github.com/sgl-project/sglang/issues/1362
# engine: sglang
# gpu: h100x8
# forms: python-m-sglang.launch_server, argparse-prefix (--disable-radix, --mem-frac)
# outcome: refused-model
python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-405B-FP8 --tp 8 --disable-radix --mem-frac 0.87
