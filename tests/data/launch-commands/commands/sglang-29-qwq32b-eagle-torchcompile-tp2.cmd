# source: https://github.com/sgl-project/sglang/issues/5491 (comment by liuteng, 2025-04-20, answering "Can u share ur command about how did u launch server?")
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU
# forms: python-m-sglang, multi-line, local-path-model
# outcome: refused-model
# note: not stated (April 2025); Qwen/QwQ-32B with a self-trained EAGLE-1 draft; "sglang crush during run with eagle decode" with flashinfer; commenter says switching --attention-backend to triton avoided the crash and fa3 works but only with eagle-topk 1. Issue closed.
python -m sglang.launch_server --model /mnt/data/open_source/QwQ-32B/Qwen__QwQ-32B/   --served-model-name Qwen-32B --speculative-algorithm EAGLE \
    --speculative-draft-model-path /mnt/train/eagle/EAGLE-1/ckpt_2/state_1/ --speculative-num-steps 3 \
    --speculative-eagle-topk 2 --speculative-num-draft-tokens 8 --cuda-graph-max-bs 8 --port 9123 --tensor-parallel-size 2 --mem-fraction-static 0.8 --attention-backend fa3 --enable-torch-compile --max-running-requests 100
