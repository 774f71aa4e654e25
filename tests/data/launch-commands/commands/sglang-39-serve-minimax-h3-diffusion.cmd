# source: https://github.com/sgl-project/sglang/issues/33501
# engine: sglang
# gpu: rtx-pro-6000-blackwell
# gpu-note: chosen: the host name suggests RTX PRO 6000; the thread does not say
# forms: sglang-serve, multi-line
# outcome: refused-model
# note: conda env named "sglang5.16" (Aug 2026); a commenter asks whether the pre-release version was installed; MiniMaxAI/MiniMax-H3 diffusion model via `sglang serve --model-type diffusion`, Ulysses sequence parallel 8. FAILS AS TYPED: "error: unrecognized arguments: --model-variant fl2va" (flag not in the installed release). Shell prompt prefix "(sglang5.16) ...$ " dropped.
sglang serve \
  --model-type diffusion \
  --model-path MiniMaxAI/MiniMax-H3 \
  --num-gpus 8 \
  --ulysses-degree 8 \
  --performance-mode speed \
  --host 0.0.0.0 \
  --port 30010 \
  --model-variant fl2va
