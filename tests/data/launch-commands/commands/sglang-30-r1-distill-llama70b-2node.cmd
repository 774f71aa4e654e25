# source: https://github.com/sgl-project/sglang/issues/3467
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU type; the count comes from --tp 8
# forms: python-m-sglang, multi-line, -tp, multi-node, local-path-model
# outcome: refused-model
# note: not stated (Feb 2025); DeepSeek-R1-Distill-Llama-70B across two machines, "stuck in Init". LIKELY WRONG AS TYPED: node 1 uses --dist-init-addr 10.68.27.12:5000 but node 2 uses --dist-init-addr 10.0.1.104:5000; every node must point at the rank-0 node's address (the thread's resolution was not in the stored excerpt). Both node commands kept as in the issue's run_2_nodes.sh.
# node 1
/data/miniconda3/envs/fffan_sglang/bin/python \
            -m sglang.launch_server \
            --model-path /data/fffan/models/DeepSeek-R1-Distill-Llama-70B \
            --tp 8 --dist-init-addr 10.68.27.12:5000 --nnodes 2 --node-rank 0 --trust-remote-code \
            --host 0.0.0.0 --port 3000

# node 2
/data/miniconda3/envs/fffan_sglang/bin/python \
      -m sglang.launch_server \
      --model-path /data/fffan/models/DeepSeek-R1-Distill-Llama-70B \
      --tp 8 --dist-init-addr 10.0.1.104:5000 --nnodes 2 --node-rank 1 --trust-remote-code
