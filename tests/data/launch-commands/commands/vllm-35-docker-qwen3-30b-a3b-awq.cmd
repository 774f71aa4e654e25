# source: https://github.com/vllm-project/vllm/issues/17739
# engine: vllm
# gpu: rtx-3090-ti
# forms: docker-run, flag=value
# outcome: refused-flag
# note: docker vllm/vllm-openai:v0.8.5 (issue title says v0.8.5.post1); swift/Qwen3-30B-A3B-AWQ via ModelScope, V0 engine forced (VLLM_USE_V1=0), -q awq, fp16; reported as "not working" (issue closed as stale). (--disable-log-requests was later deprecated in vLLM.)
sudo docker run --ipc=host --log-opt max-size=10m --log-opt max-file=1 --rm -it --gpus '"device=0"' --env "VLLM_USE_MODELSCOPE=True" --env "VLLM_USE_V1=0" -p 8000:8000 --mount type=bind,source=/home/me/.cache,target=/root/.cache vllm/vllm-openai:v0.8.5 --model swift/Qwen3-30B-A3B-AWQ --max-model-len 4000 --dtype half --gpu-memory-utilization 0.92 --disable-log-requests --no-enable-prefix-caching -q awq --tensor-parallel-size 1
