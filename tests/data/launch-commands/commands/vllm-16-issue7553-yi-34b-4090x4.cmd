# source: https://github.com/vllm-project/vllm/issues/7553
# engine: vllm
# gpu: rtx-4090x4
# forms: env-prefix, python-m-vllm.entrypoints.openai.api_server, local-path-model
# outcome: refused-model
CUDA_VISIBLE_DEVICES=4,5,6,7 python -m vllm.entrypoints.openai.api_server --served-model-name Yi-1.5-34B-Chat --model /workspace/sdb/models/Yi/Yi-1.5-34B-Chat/ --port 8001 --gpu-memory-utilization 0.9 --swap-space 0  --tensor-parallel-size 4
