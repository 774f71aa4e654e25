# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: h200x8
# forms: docker-run, python3-m-sglang.launch_server, multi-line
# outcome: starts
docker run --gpus all --shm-size 32g -p 30000:30000 -v ~/.cache/huggingface:/root/.cache/huggingface --ipc=host --network=host --privileged lmsysorg/sglang:latest \
    python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3 --tp 8 --trust-remote-code --port 30000
