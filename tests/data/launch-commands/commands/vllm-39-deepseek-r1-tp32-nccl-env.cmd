# source: https://github.com/vllm-project/vllm/issues/12256 (comment by heiyexingguang, 2025-02-21)
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the comment names no GPU; the count comes from --tensor-parallel-size 32
# forms: env-prefix, vllm-serve, underscore-flag
# outcome: refused-command
# note: not stated (Feb 2025; the flags used, --enable-reasoning and top-level --num-speculative-tokens, point to vLLM 0.7.x); DeepSeek-R1 FP8 at TP32 with NCCL IB env vars, MTP-style --num-speculative-tokens 1, enforce-eager; issue title "deepseek v3 can not set tensor_parallel_size=32". WRONG AS TYPED in the shell sense: every continuation is "\ " (backslash followed by a space) so the line continuations break, and the NCCL_SOCKET_IFNAME value is split across lines ("ens" / "12f0"). Both kept exactly as stored in the issue text (tabs included). --enable-reasoning and --num-speculative-tokens were later removed from vLLM.
RAY_IGNORE_UNHANDLED_ERRORS=1 NCCL_P2P_LEVEL=NVL NCCL_IB_CUDA_SUPPORT=1 NCCL_NET_GDR_LEVEL=2 NCCL_IB_DISABLE=0  NCCL_IB_HCA=mlx5 NCCL_SOCKET_IFNAME=ens 
12f0 NCCL_DEBUG=INFO vllm serve \ 
	 /app/DeepSeek-R1 \ 
	 --served-model-name "deepseek-reasoner-1212" \ 
	 --trust-remote-code \ 
	 --host "0.0.0.0" \ 
	 --port 7860 \ 
	 --max-model-len 65536 \ 
	 --gpu-memory-utilization 0.9 \ 
	 --tensor-parallel-size 32 \ 
	 --enable-reasoning \ 
	 --reasoning-parser deepseek_r1 \ 
	 --max_num_batched_tokens 32768  --enforce-eager  --quantization fp8 \ 
	 --max-num-seqs 128 --pipeline-parallel-size 1 --enable-prefix-caching --enable-chunked-prefill  --num-speculative-tokens 1
