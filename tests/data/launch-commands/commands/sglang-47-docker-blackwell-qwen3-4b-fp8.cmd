# source: https://github.com/sgl-project/sglang/issues/7227 (comment by celsowm, 2025-06-23, replying about Qwen/Qwen3-4B-FP8)
# engine: sglang
# gpu: b200
# gpu-note: chosen: the lmsysorg/sglang:blackwell image implies a Blackwell GPU; the thread names none
# forms: docker-run, python-m-sglang, multi-line, flag=value
# outcome: refused-model
# note: docker image lmsysorg/sglang:blackwell (CUDA 12.8.1 per container banner); Qwen/Qwen3-4B-FP8 with --context-length 60000 in the Blackwell image, posted in the SGLang roadmap thread with its startup log (server_args show kv_cache_dtype auto, mem_fraction_static 0.909); outcome beyond startup not in the stored excerpt. Shell prompt "root@srv-ia-010:/var/tmp# " dropped.
docker run \
    --gpus all \
    -p 8000:8000 \
    --ipc=host \
    lmsysorg/sglang:blackwell \
    python -m sglang.launch_server \
    --model-path Qwen/Qwen3-4B-FP8 \
    --port 8000 \
    --context-length 60000
