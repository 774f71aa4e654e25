# source: https://github.com/sgl-project/sglang/issues/6933
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU type; the count comes from --tp-size 4
# forms: python-m-sglang, flag=value
# outcome: refused-flag
# note: not stated (June 2025); meta-llama/Llama-4-Scout-17B-16E-Instruct with --enable-multimodal, 196608 context, pythonic tool template, radix cache off, with env SGLANG_VLM_CACHE_SIZE_MB: 100 (stated separately, not on the line); raises CUDA OOM during an image benchmark (closed, inactive).
python3 -m sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct --tp-size=4 --host=0.0.0.0 --mem-fraction-static=0.95 --context-length=196608 --enable-multimodal --tool-call-parser=pythonic --chat-template=examples/chat_template/tool_chat_template_llama4_pythonic.jinja --disable-radix-cache
