# source: https://github.com/sgl-project/sglang/pull/3582 (comment by lambert0312, 2025-02-16)
# engine: sglang
# gpu: a800-sxm4-80gb
# gpu-note: the thread says A800 nodes; the count comes from --tp 8
# forms: python-m-sglang, -tp
# outcome: refused-model
# note: not stated (Feb 2025, PR adding NextN/MTP for DeepSeek-V3/R1); deepseek-ai/DeepSeek-V3-bf16 with a self-converted bf16 NextN draft; "the server cannot start correct". Maintainer notes the BF16 model (~1.3TB) needs at least 32x A800-80G, so --tp 8 alone is insufficient. Abbreviated flags --speculative-algo/--speculative-draft/--disable-radix.
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3-bf16 --speculative-algo NEXTN --speculative-draft /path/to/DeepSeek-V3-NextN-bf16 --speculative-num-steps 2 --speculative-eagle-topk 4 --speculative-num-draft-tokens 4 --disable-radix --tp 8
