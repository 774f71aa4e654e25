# source: https://github.com/sgl-project/sglang/issues/5320
# engine: sglang
# gpu: rtx-4090
# gpu-note: chosen: the thread names no GPU
# forms: python-m-sglang, multi-line, local-path-model
# outcome: refused-model
# note: reporter says w8a8int8 broken since 0.4.4.post2 (April 2025); reinforce20001/SakuraLLM.Sakura-14B-Qwen2.5-v1.0-W8A8-Int8-V2 (compressed-tensors W8A8 int8, local path) fails to load; maintainer HandH1998: SGLang then only supported CompressedTensorsW8A8Fp8 for compressed-tensors, int8 support to be added. Odd indentation kept as typed.
python3 -m sglang.launch_server --model-path /models/SakuraLLM.Sakura-14B-Qwen2.5-v1.0-W8A8-Int8 --host 0.0.0.0 --port 30000 \
            --context-length 2048 \
      --enable-metrics
