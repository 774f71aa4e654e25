# source: https://github.com/sgl-project/sglang/issues/11751
# engine: sglang
# gpu: rtx-3090
# forms: python-m-sglang
# outcome: refused-command
# note: docker image lmsysorg/sglang:latest (Oct 2025; container shows CUDA 12.9.1); unsloth/gpt-oss-120b with --cpu-offload-gb 35, --quantization mxfp4, TP2; reporter gets "an error message about the quantization of the model" (closed, inactive). The command is the `command: >` folded-scalar block of the reporter's docker-compose service (image lmsysorg/sglang:latest, ipc host, shm_size 32g, all GPUs); YAML indentation removed, lines otherwise as posted (folded YAML joins them with spaces, so no backslashes).
python3 -m sglang.launch_server
--model-path unsloth/gpt-oss-120b
--cpu-offload-gb 35
--host 0.0.0.0
--port 30000
--context-length 16384
--tp-size 2
--dtype auto
--trust-remote-code
--quantization mxfp4
--mem-fraction-static 0.9
