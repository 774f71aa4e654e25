# source: https://github.com/vllm-project/vllm/issues/5248
# engine: vllm
# gpu: a2x2
# gpu-note: chosen: the thread runs on 2 x Tesla T4 16 GB, not in the catalog; the A2 is a 16 GB catalog GPU
# forms: env-prefix, python-m-vllm.entrypoints.api_server, flag=value, quoted-value, local-path-model
# outcome: refused-model
CUDA_VISIBLE_DEVICES=0,1 python -m vllm.entrypoints.api_server --model="/cm/deepseek-coder-6.7b-instruct/" --tensor-parallel-size=2 --trust-remote-code --dtype="float16"
