# source: https://github.com/sgl-project/sglang/pull/6121
# engine: sglang
# gpu: a40x4
# forms: python-m-sglang.launch_server, --tp-size, multi-line
# outcome: refused-flag
python -m sglang.launch_server \
    --model-path Qwen/Qwen3-30B-A3B \
    --trust-remote-code \
    --mem-fraction-static 0.6 \
    --max-prefill-tokens 2048 \
    --chunked-prefill-size 2048 \
    --disable-radix-attention \
    --tp-size 4
