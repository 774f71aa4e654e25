# source: https://github.com/vllm-project/vllm/issues/15469
# engine: vllm
# gpu: rtx-4090x2
# gpu-note: chosen: the thread names no GPU
# forms: env-prefix, vllm-serve, local-path-model, bare-boolean
# outcome: refused-model
CUDA_VISIBLE_DEVICES=0,1 VLLM_USE_V1=1 VLLM_WORKER_MULTIPROC_METHOD=spawn vllm serve /home/work/anyujie/Qwen/Qwen2.5-VL-3B-Instruct --gpu-memory-utilization 0.9 --swap-space 16 --max-model-len 4096 --tensor-parallel-size 2 --port 8091 --disable-custom-all-reduce
