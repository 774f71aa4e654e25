# source: https://github.com/sgl-project/sglang/issues/3658
# engine: sglang
# gpu: h200x8
# forms: python3-m-sglang.launch_server, --tensor-parallel-size alias, dp-attention, local-path-model
# outcome: refused-model
python3 -m sglang.launch_server --model-path /mnt/model/  --tensor-parallel-size 8 --trust-remote-code --enable-torch-compile  --disable-cuda-graph --enable-dp-attention
