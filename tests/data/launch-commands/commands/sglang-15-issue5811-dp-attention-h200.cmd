# source: https://github.com/sgl-project/sglang/issues/5811
# engine: sglang
# gpu: h200x8
# forms: python3-m-sglang.launch_server, dp-attention, multi-line
# outcome: starts
# note: the thread runs it in docker (lmsysorg/sglang:v0.4.5.post3-cu121) with -e SG_DEEPGEMM_JIT=1; the command inside the container
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --host 0.0.0.0 --port 8000 --tp 8 --trust-remote-code \
--enable-dp-attention --dp-size 8
