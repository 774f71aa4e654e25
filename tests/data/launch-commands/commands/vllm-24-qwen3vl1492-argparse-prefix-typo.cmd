# source: https://github.com/QwenLM/Qwen3-VL/issues/1492
# engine: vllm
# gpu: h100x8
# gpu-note: the README's comment says FP8 requires H100+; H100 chosen
# forms: python-m-vllm.entrypoints.openai.api_server, argparse-prefix, backslash-after-word, multi-line
# outcome: refused-flag
python -m vllm.entrypoints.openai.api_server \
  --model Qwen/Qwen3-VL-235B-A22B-Instruct\
  --served-model-name Qwen/Qwen3-VL-235B-A22B-Instruct \
  --tensor-parallel-size 8 \
  --mm-encoder-tp-mode data \
  --enable-expert-paralle \
  --host 0.0.0.0 \
  --port 22002 \
  --dtype bfloat16 \
  --gpu-memory-utilization 0.70 \
  --quantization fp8 \
  --distributed-executor-backend mp
