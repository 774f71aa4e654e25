# source: https://github.com/vllm-project/vllm/issues/6689
# engine: vllm
# gpu: h100x2
# gpu-note: the host is named sws-2h100-01; H100 SXM chosen
# forms: python-m-vllm.entrypoints.openai.api_server, local-path-model, removed-flag
# outcome: refused-model
python -m vllm.entrypoints.openai.api_server --model /NS/llm-1/nobackup/shared/huggingface_cache/hub/models--meta-llama--Meta-Llama-3.1-70B-Instruct --tensor-parallel-size 2  --max-seq-len-to-capture 32000 --max-model-len 32000
