# source: https://github.com/sgl-project/sglang/blob/104ef15a69398127ddbc9940e9c93d5f1d9e367f/docs/basic_usage/qwen3.md
# engine: sglang
# gpu: h100x4
# forms: python3-m-sglang.launch_server, speculative, argparse-prefix (--speculative-algo), multi-line
# outcome: refused-flag
python3 -m sglang.launch_server \
  --model Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp 4 \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --speculative-algo NEXTN
