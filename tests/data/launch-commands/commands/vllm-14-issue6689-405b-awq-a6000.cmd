# source: https://github.com/vllm-project/vllm/issues/6689
# engine: vllm
# gpu: rtx-a6000x8
# forms: vllm-serve, -q, flag=false, multi-line
# outcome: refused-model
vllm serve Meta-Llama-3___1-405B-Instruct-AWQ-INT4 \
    --port 8080 \
    --host 0.0.0.0 \
    --served-model-name llama-3.1-405b \
    --trust-remote-code \
    --max-model-len 8192 -q awq \
    --tensor-parallel-size 8 \
    --enable-chunked-prefill=false \
    --disable-log-requests \
    --disable-log-stats
