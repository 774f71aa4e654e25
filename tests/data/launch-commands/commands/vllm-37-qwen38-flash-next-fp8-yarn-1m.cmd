# source: vllm-project/recipes/models/Qwen/Qwen3.8-Flash-Next.yaml@1444b59bf851cf701e92f4eb8ce15e0bae2b3d1d (guide section "Extend to one million tokens with YaRN")
# engine: vllm
# gpu: gb300
# gpu-note: the recipe recommends 4 GB300 for its FP8 setup
# forms: env-prefix, vllm-serve, multi-line, json-value
# outcome: refused-model
# note: image vllm/vllm-openai:qwen38-flash-next (recipe min_vllm_version 0.29.0); Qwen/Qwen3.8-Flash-Next-FP8, static YaRN factor 4 over 262144 via --hf-overrides rope_parameters, 1,000,000-token max-model-len. This is the fixed form from vllm-project/recipes PR #856 (https://github.com/vllm-project/recipes/pull/856): the earlier recipe line `--rope-scaling '{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":262144}'` crashed on boot because --rope-scaling was removed in vLLM 0.11.1 (PR #28006); PR author: "old flag crashes, new one boots fine and gives max_model_len=1000000". 2-space YAML indent removed.
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 \
vllm serve Qwen/Qwen3.8-Flash-Next-FP8 \
  --tensor-parallel-size 4 \
  --hf-overrides '{"rope_parameters":{"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":262144}}' \
  --max-model-len 1000000 \
  --no-enable-flashinfer-autotune \
  --enable-auto-tool-choice \
  --tool-call-parser qwen3_xml \
  --reasoning-parser qwen3
