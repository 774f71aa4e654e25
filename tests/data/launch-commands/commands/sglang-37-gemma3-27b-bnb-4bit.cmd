# source: https://github.com/sgl-project/sglang/issues/4897
# engine: sglang
# gpu: a100-80gb
# gpu-note: chosen: the thread names no GPU (one, tp_size=1 in its server_args)
# forms: python-m-sglang, local-path-model
# outcome: refused-model
# note: not stated (March 2025; log line "__init__.py:190 Automatically detected platform cuda"); unsloth gemma-3-27b-it bnb-4bit (local path) loaded with --load-format bitsandbytes and --context-length 4096; "[Bug] gemma-3-27b-it-bnb-4bit crash" (closed, inactive). Command copied from the log the reporter pasted (leading space dropped).
python3 -m sglang.launch_server --model-path /llm/model/google/unsloth_gemma-3-27b-it-unsloth-bnb-4bit/ --host 0.0.0.0 --port 30000 --trust-remote-code --load-format bitsandbytes --context-length 4096
