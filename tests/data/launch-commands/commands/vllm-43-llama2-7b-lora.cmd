# source: https://github.com/vllm-project/vllm/issues/2909
# engine: vllm
# gpu: a100-80gb
# gpu-note: chosen: the thread names no GPU
# forms: python-m-vllm, multi-line
# outcome: refused-model
# note: not stated (Feb 2024; commenters report the same with vllm/vllm-openai:latest and later vllm-openai:0.5.0, and "Upgrading to vllm==0.3.3 solved this"); meta-llama/Llama-2-7b-hf + sql-lora adapter. WRONG AS TYPED: fails with "api_server.py: error: unrecognized arguments: --lora-modules ..." because vllm.entrypoints.api_server (the demo server) has no --lora-modules; the OpenAI server (vllm.entrypoints.openai.api_server) does. Posted wrapped in single backticks.
python -m vllm.entrypoints.api_server \
    --model meta-llama/Llama-2-7b-hf \
    --enable-lora \
    --lora-modules sql-lora=~/.cache/huggingface/hub/models--yard1--llama-2-7b-sql-lora-test/
