# source: https://github.com/sgl-project/sglang/issues/3362
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU type (4 GPUs by CUDA_VISIBLE_DEVICES)
# forms: env-prefix, python-m-sglang, local-path-model
# outcome: refused-flag
# note: not stated (Feb 2025); Meta-Llama-3.1-70B-Instruct with sglang-EAGLE-LLaMA3-Instruct-70B draft, EAGLE (v2) speculative decoding, abbreviated flags --speculative-algo/--speculative-draft/--mem-fraction (argparse prefixes); reporter gets an error shown only as screenshots ("run eagle speculative decodeing error!"), closed as inactive.
CUDA_VISIBLE_DEVICES=0,1,3,7 python -m sglang.launch_server --model /mnt/nvme0n1/ckpt/llama/Meta-Llama-3.1-70B-Instruct --port 9001 --host 0.0.0.0 --tensor-parallel-size 4 --speculative-algo EAGLE --speculative-draft /mnt/nvme0n1/ckpt/llama/sglang-EAGLE-LLaMA3-Instruct-70B --speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64 --mem-fraction 0.7 --disable-cuda-graph
