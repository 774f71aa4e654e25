# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: l40s
# gpu-note: 32 L40S in four nodes; the count comes from --tp 32 and --nnodes 4
# forms: python3-m-sglang.launch_server, argparse-prefix (--trust-remote), tab-indented continuation, multi-node, multi-line
# outcome: refused-model
python3 -m sglang.launch_server --model meituan/DeepSeek-R1-Channel-INT8 --tp 32 --quantization w8a8_int8 \
	--dist-init-addr MASTER_IP:5000 --nnodes 4 --node-rank 0 --trust-remote \
	--enable-torch-compile --torch-compile-max-bs 32
