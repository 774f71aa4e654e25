# source: https://github.com/sgl-project/sglang/blob/067ad4d335bbd6da15d4a83a6f257cfa9e0f6be0/docs/advanced_features/speculative_decoding.md
# engine: sglang
# gpu: h100
# gpu-note: the page's performance table runs on 1 x H100
# forms: python3-m-sglang.launch_server, speculative, multi-line
# outcome: refused-model
python3 -m sglang.launch_server \
    --model meta-llama/Meta-Llama-3.1-8B-Instruct \
    --speculative-algorithm EAGLE3 \
    --speculative-draft-model-path jamesliu1/sglang-EAGLE3-Llama-3.1-Instruct-8B \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 4 \
    --speculative-num-draft-tokens 16 \
    --mem-fraction-static 0.7 \
    --cuda-graph-max-bs 8 \
    --dtype float16 \
    --log-level warning
