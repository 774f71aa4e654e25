# source: https://github.com/vllm-project/vllm/blob/2cda47d8c4f21162af1f42df4e3e1a71659096bb/docs/configuration/serve_args.md
# engine: vllm
# gpu: h100
# gpu-note: chosen: the page names no GPU
# forms: vllm-serve, config-file, model-in-config
# outcome: starts
# note: config.yaml is the page's file, in ../config/
vllm serve --config config.yaml
