# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: a100-80gb
# gpu-note: 16 A100 in two nodes; the count comes from --tp 16 and --nnodes 2
# forms: python3-m-sglang.launch_server, tab-indented continuation, placeholder MASTER_IP, multi-node, multi-line
# outcome: refused-model
python3 -m sglang.launch_server \
	--model meituan/DeepSeek-R1-Block-INT8 --tp 16 --dist-init-addr \
	MASTER_IP:5000 --nnodes 2 --node-rank 0 --trust-remote-code --enable-torch-compile --torch-compile-max-bs 8
