# source: https://github.com/vllm-project/vllm/issues/22303
# engine: vllm
# gpu: h100x2
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve, underscore-flag, boolean-with-value, multi-line
# outcome: refused-command
vllm serve /mnt/general/models/Qwen3-30B-A3B-Instruct-2507-FP8  \
--served-model-name Qwen3-30B-A3B-Instruct-2507-FP8 \
--tensor-parallel-size 2 \
--pipeline-parallel-size 1 \
--gpu-memory-utilization  0.9 \
--port 8011 \
--trust-remote-code \
--max-model-len 64000 \
--enforce_eager true 
