# source: https://github.com/QwenLM/Qwen3.8/issues/168
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU; the count comes from --tensor-parallel-size 2
# forms: vllm-serve, multi-line, json-value, underscore-flag, local-path-model
# outcome: refused-flag
# note: not stated (May 2026); Qwen3.5-27B (local path) with JSON --limit-mm-per-prompt '{"image": 6, "video": 2}', 210000 context, --mm-encoder-tp-mode data, shm mm processor cache, thinking disabled via --default-chat-template-kwargs; reporter (in Chinese): with multiple videos in one request the server receives the request but never responds. --enable-prefix-caching appears twice as typed.
vllm serve /mnt/data/liuyang/model/Qwen3.5-27B \
--limit-mm-per-prompt '{"image": 6, "video": 2}' \
--tensor-parallel-size 2 \
--reasoning-parser qwen3 \
--max-model-len 210000 \
--enable-prefix-caching \
--gpu-memory-utilization 0.95 \
--block-size 16 \
--port 8005 \
--enable-log-requests \
--enable-prompt-tokens-details \
--max-num-seqs 1024 \
--max_log_len 128 \
--mm-encoder-tp-mode data \
--mm-processor-cache-type shm \
--enable-prefix-caching \
--default-chat-template-kwargs '{"enable_thinking": false}' \
--served-model-name Qwen3.5-27B
