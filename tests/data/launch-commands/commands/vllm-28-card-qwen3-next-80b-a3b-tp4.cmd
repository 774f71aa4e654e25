# source: https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct (model card, "Deployment": vLLM; its MTP variant of this line is copied at find_string id 13355160369)
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: the card names no GPU, only tensor parallel on 4 GPUs; H100 80 GB chosen, the count from --tensor-parallel-size 4
# forms: env-prefix, vllm-serve, --tensor-parallel-size, --max-model-len
# outcome: starts
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --port 8000 --tensor-parallel-size 4 --max-model-len 262144
