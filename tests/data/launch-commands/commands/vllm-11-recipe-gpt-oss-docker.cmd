# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: h100
# gpu-note: chosen: the quickstart names no GPU
# forms: docker-run, multi-line
# outcome: starts
docker run --gpus all \
    -p 8000:8000 \
    --ipc=host \
    vllm/vllm-openai \
    --model openai/gpt-oss-20b
