# source: https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct (model card, "Deployment": SGLang; copy at find_string id 3928763901)
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: the card names no GPU, only "tensor parallel on 4 GPUs"; H100 80 GB chosen, the count from --tp-size 4
# forms: env-prefix, python-m-sglang.launch_server, --model-path, --tp-size
# outcome: starts
SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --port 30000 --tp-size 4 --context-length 262144 --mem-fraction-static 0.8
