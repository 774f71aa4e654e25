# source: https://github.com/sgl-project/sglang/blob/0006053c1f740de8041eae003f507a38912b96c2/benchmark/deepseek_v3/README.md
# engine: sglang
# gpu: h20-96gb
# gpu-note: two H20 nodes of 8 GPUs; the count comes from --tp 16 and --nnodes 2
# forms: python3-m-sglang.launch_server, multi-node
# outcome: starts
python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0 --trust-remote-code
