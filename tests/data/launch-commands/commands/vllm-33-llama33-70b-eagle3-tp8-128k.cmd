# source: https://github.com/vllm-project/vllm/issues/19174
# engine: vllm
# gpu: h100-sxm-80gb
# forms: python-m-vllm, json-value, underscore-flag
# outcome: refused-model
# note: v0.9.0.1 plus the EAGLE-3 fix PR #19033 (per the issue); meta-llama/Llama-3.3-70B-Instruct with yuhuili/EAGLE3-LLaMA3.3-Instruct-70B draft (draft TP 8), 131072 context; reporter hits an error in the worker forward (multiproc_executor traceback) while loading/running EAGLE-3 (issue open). Uses --max_seq_len_to_capture (later deprecated in vLLM in favour of cuda-graph capture sizes) and underscore spellings (--gpu_memory_utilization, --speculative_config).
python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.3-70B-Instruct  --seed 42 --tensor-parallel-size 8 --max-model-len 131072 --max-num-batched-tokens 131072 --max-num-seqs 100 --max_seq_len_to_capture 131072 --gpu_memory_utilization 0.9 --no-enable-prefix-caching --speculative_config '{
    "model": "yuhuili/EAGLE3-LLaMA3.3-Instruct-70B",
    "draft_tensor_parallel_size": 8,
    "num_speculative_tokens":5,
    "method": "eagle3"
    }'
