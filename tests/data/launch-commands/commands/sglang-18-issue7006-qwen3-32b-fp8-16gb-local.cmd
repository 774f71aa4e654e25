# source: https://github.com/sgl-project/sglang/issues/7006
# engine: sglang
# gpu: rtx-4060-ti-16gbx2
# gpu-note: chosen: the error names 15.77 GiB GPUs without their model; a 16 GB catalog GPU
# forms: python-m-sglang.launch_server, --tp-size, local-path-model, multi-line
# outcome: refused-model
# note: the thread sets CUDA_VISIBLE_DEVICES=0,1 with export on the line before
python -m sglang.launch_server \
      --model-path mymodels \
      --tp-size 2 \
      --port 30000 --host 0.0.0.0
