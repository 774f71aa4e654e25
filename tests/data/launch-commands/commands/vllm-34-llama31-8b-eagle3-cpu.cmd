# source: https://github.com/vllm-project/vllm/pull/42468
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the source runs it on the CPU backend, which gpumem does not model
# forms: vllm-serve, multi-line, json-value
# outcome: refused-model
# note: not stated (PR merged 2026-05); meta-llama/Llama-3.1-8B-Instruct with RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3 draft; "Test Plan" server command of the PR "[BugFix][CPU][Spec Decode] Fix Eagle implementation on CPU backend" (before the fix Eagle did not work on CPU).
vllm serve meta-llama/Llama-3.1-8B-Instruct \
  --dtype bfloat16 \
  --no-enable-prefix-caching \
  --trust-remote-code \
  --speculative-config '{"method": "eagle3", "model": "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3", "num_speculative_tokens": 2}'
