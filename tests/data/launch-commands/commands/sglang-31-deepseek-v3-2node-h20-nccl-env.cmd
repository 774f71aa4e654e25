# source: https://github.com/sgl-project/sglang/issues/3398
# engine: sglang
# gpu: h20-96gb
# gpu-note: 16 H20 in two nodes; the count comes from --tp 16
# forms: python-m-sglang, -tp, multi-node, local-path-model
# outcome: refused-command
# note: not stated (Feb 2025); DeepSeek-V3 (local path) 2-node TP16 following benchmark/deepseek_v3 README; "server was still stuck when setting up" (closed, inactive). The two nodes' eth0 IPs are in different subnets (11.130.1.53 vs 33.18.27.52). First-node commands shown; the second node runs the same with --node-rank 1.
export NCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export NCCL_DEBUG=TRACE

python3 -m sglang.launch_server --model-path /code/llm-benchmark-script/data/raw/DeepSeek-V3 --tp 16 --dist-init-addr 11.130.1.53:5000 --nnodes 2 --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 6178
