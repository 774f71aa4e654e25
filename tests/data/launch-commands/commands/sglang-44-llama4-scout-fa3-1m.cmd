# source: https://github.com/sgl-project/sglang/issues/5212
# engine: sglang
# gpu: h100-sxm-80gb
# forms: python-m-sglang, multi-line, flag=value
# outcome: refused-command
# note: not stated (April 2025); meta-llama/Llama-4-Scout-17B-16E-Instruct, fa3 attention, 1M context, llama-4 chat template; the issue is OOM with a 400k-token input request (labelled bug, high priority; closed). WRONG AS TYPED: `python sglang.launch_server` lacks `-m` (would try to open a file named sglang.launch_server); the server was evidently started with the module form.
python sglang.launch_server --model meta-llama/Llama-4-Scout-17B-16E-Instruct \
--port 8080 \
--tp-size 8 \
--chat-template llama-4 \
--attention-backend=fa3 \
--context-length 1000000 
