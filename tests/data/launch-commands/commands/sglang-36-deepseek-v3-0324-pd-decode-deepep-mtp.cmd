# source: https://github.com/sgl-project/sglang/issues/7998
# engine: sglang
# gpu: h200-sxm-141gb
# gpu-note: chosen: the thread names no GPU type; the count comes from --tp-size 16
# forms: env-prefix, python-m-sglang, multi-node, local-path-model
# outcome: refused-model
# note: SGLang main branch (July 2025) with DeepEP and Mooncake on master; DeepSeek-V3-0324, PD-disaggregation decode server ("xP + 2D, max_running_requests=32, draft_token_num=3") with DP attention, DeepEP low_latency, EPLB init-expert-location, MTP via EAGLE; maintainer instruction thread (Qiaolin-Yu). Node-rank-0 decode command as posted.
SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 SGLANG_DISAGGREGATION_HEARTBEAT_MAX_FAILURE=10000000 SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=256 MC_TE_METRIC=true python3 -m sglang.launch_server --model-path /mnt/shared-fs/models/deepseek-ai/DeepSeek-V3-0324 --disaggregation-ib-device mlx5_1 --disaggregation-mode decode --dist-init-addr 10.0.7.67:5757 --tp-size 16 --dp-size 16 --enable-dp-attention --decode-log-interval 1 --enable-deepep-moe --page-size 64 --host 0.0.0.0 --trust-remote-code --moe-dense-tp-size 1 --enable-dp-lm-head --disable-radix-cache --watchdog-timeout 1000000 --deepep-mode low_latency --mem-fraction-static 0.8 --max-running-requests 32 --context-length 73728 --ep-num-redundant-experts 32 --disable-shared-experts-fusion --cuda-graph-max-bs 2 --init-expert-location /mnt/shared-fs/stats-qiaolin/mtp_213.pt --speculative-algorithm EAGLE --speculative-num-steps 2 --speculative-eagle-topk 1 --speculative-num-draft-tokens 3 --nnodes 2 --node-rank 0
