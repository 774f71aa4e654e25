# source: https://github.com/vllm-project/vllm/issues/16883
# engine: vllm
# gpu: a100-80gb
# gpu-note: chosen: the thread names no GPU; the count comes from --tensor-parallel-size 4
# forms: vllm-serve, multi-line, json-value, local-path-model
# outcome: refused-command
# note: vLLM 0.8.3/0.8.4 (issue compares with 0.7.3); Qwen2.5-Coder-32B-Instruct (local), ngram speculative decoding (prompt_lookup 10-50, 300 speculative tokens), YaRN x4 via --rope-scaling to 131072, enforce-eager; "use v0" variant from the issue: in V0 mode ngram spec decode works (SpecDecodeWorker active, "extremely fast"), while with VLLM_USE_V1 enabled it does not. --rope-scaling was later removed (vLLM 0.11.1, see recipes PR #856).
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
vllm serve /data/code/Qwen2.5-Coder-32B-Instruct \
  --host 0.0.0.0 \
  --port 8080 \
  --trust-remote-code \
  --gpu-memory-utilization 0.9 \
  --dtype auto \
  --tensor-parallel-size 4 \
  --max-num-batched-tokens 131072 \
  --max-model-len 131072 \
  --max-num-seqs 8 \
  --enable-prefix-caching \
  --speculative-config '{"method": "ngram", "prompt_lookup_min": 10, "prompt_lookup_max": 50, "num_speculative_tokens": 300}' \
  --rope-scaling '{ "factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn" }' \
  --enforce-eager
