# source: https://github.com/sgl-project/sglang/issues/12450
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU type; the count comes from --tp 4
# forms: python-m-sglang, multi-node, local-path-model
# outcome: starts
# note: not stated (Oct 2025); Qwen3-32B multi-node test, "it aways stucked" (logs only as screenshots; closed, inactive). Node 1 command shown; node 2 is identical with --node-rank 1.
python3 -m sglang.launch_server --model-path /data2/Qwen3-32B --tensor-parallel-size 4 --host 0.0.0.0 --port 30001 --mem-fraction-static 0.9  --nnodes 2 --node-rank 0 --dist-init-addr 10.121.129.5:30000
