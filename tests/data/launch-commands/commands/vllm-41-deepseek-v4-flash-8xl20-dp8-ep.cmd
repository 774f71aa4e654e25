# source: https://github.com/vllm-project/vllm/issues/40778 (comment by linchpinlin, 2026-04-24)
# engine: vllm
# gpu: l20
# forms: env-prefix, vllm-serve, multi-line, json-value, underscore-flag, local-path-model
# outcome: refused-flag
# note: docker image vllm/vllm-openai:deepseekv4-cu129; DeepSeek-V4-Flash (local path), DP8 + expert parallel, fp8 KV cache, block-size 256, FULL_AND_PIECEWISE cudagraphs, dotted config flag --attention_config.use_fp4_indexer_cache=True; posted in the "deepseek v4 support" feature thread (outcome not in the stored excerpt).
VLLM_LOGGING_LEVEL=DEBUG vllm serve /data/pretrained/DeepSeek-V4-Flash \
--served-model-name DeepSeek-V4-Flash \
--trust-remote-code \
--kv-cache-dtype fp8 \
--block-size 256 \
--enable-expert-parallel \
--data-parallel-size 8 \
--gpu-memory-utilization 0.85 \
--compilation-config '{"cudagraph_mode":"FULL_AND_PIECEWISE", "custom_ops":["all"]}' \
--attention_config.use_fp4_indexer_cache=True \
--tokenizer-mode deepseek_v4 \
--tool-call-parser deepseek_v4 \
--enable-auto-tool-choice \
--reasoning-parser deepseek_v4
