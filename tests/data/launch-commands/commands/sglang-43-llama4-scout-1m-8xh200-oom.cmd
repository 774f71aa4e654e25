# source: https://github.com/sgl-project/sglang/issues/6817
# engine: sglang
# gpu: h200-sxm-141gb
# forms: python-m-sglang, -tp
# outcome: starts
# note: sglang==0.4.6.post5 (cuda 12.6, torch 2.6.0); meta-llama/Llama-4-Scout-17B-16E-Instruct with --context-length 1000000 following the docs' llama4.md; hits the same CUDA OOM as #5755 at launch (issue open). Posted in single backticks with a trailing newline before the closing backtick. The row simulates the newest SGLang modelled; at the thread's 0.4.6.post5 gpumem stops earlier, with the AssertionError that asks Llama 4 for an attention backend.
python -m sglang.launch_server --model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --port 30000 --tp 8 --context-length 1000000 --mem-fraction-static 0.8
