# source: https://github.com/vllm-project/vllm/issues/12106 (comment by yxchng, 2025-01-17, "Method 1: Serve without LoRA (baseline)")
# engine: vllm
# gpu: a100-80gb
# gpu-note: chosen: the thread names no GPU type; the count comes from --tensor-parallel-size 4
# forms: env-prefix, vllm-serve, underscore-flag
# outcome: refused-command
# note: not stated (Jan 2025); Qwen/Qwen2-VL-72B-Instruct quantized on the fly with bitsandbytes, up to 10 images per prompt; this baseline served and answered an image request. The flag appears in the comment broken as "--quantiza    tion" (copy/paste artifact that would fail as typed) - kept verbatim. The comment's leading markdown quote marker "> " was dropped.
VLLM_CACHE_ROOT=/home/cyg1sgh/temp CUDA_VISIBLE_DEVICES=1,2,3,4 VLLM_WORKER_MULTIPROC_METHOD=spawn vllm serve Qwen/Qwen2-VL-72B-Instruct --host 0.0.0.0 --port 8000 --tensor-parallel-size 4 --disable_custom_all_reduce --limit-mm-per-prompt "image=10" --quantiza    tion 'bitsandbytes'  --load_format "bitsandbytes" 
