# source: https://github.com/ovg-project/kvcached/issues/210
# engine: vllm
# gpu: a100-40gbx8
# forms: vllm-serve, no-flag, trailing-ampersand, multi-line
# outcome: refused-model
vllm serve unsloth/Llama-3.1-70B-Instruct \
  --disable-log-requests \
  --no-enable-prefix-caching \
  --port 8001 \
  --tensor-parallel-size 8 \
  --enable-sleep-mode &
