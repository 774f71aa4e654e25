# source: https://github.com/sgl-project/sglang/blob/067ad4d335bbd6da15d4a83a6f257cfa9e0f6be0/docs/advanced_features/speculative_decoding.md
# engine: sglang
# gpu: h100
# gpu-note: chosen: the page names no GPU for this example
# forms: env-prefix, python3-m-sglang.launch_server, speculative, multi-line
# outcome: refused-flag
SGLANG_ENABLE_SPEC_V2=True python3 -m sglang.launch_server \
    --model Qwen/Qwen2.5-7B-Instruct \
    --speculative-algorithm STANDALONE \
    --speculative-draft-model-path Qwen/Qwen2.5-1.5B-Instruct \
    --speculative-num-steps 4 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 5 \
    --mem-fraction-static 0.7 \
    --cuda-graph-max-bs 8 \
    --log-level warning
