# source: https://github.com/vllm-project/vllm/issues/15277 (comment by Zeppelinpp, 2025-03-21)
# engine: vllm
# gpu: a100-80gb
# gpu-note: chosen: the environment is named a100env; the thread does not say
# forms: env-prefix, vllm-serve, underscore-flag, local-path-model
# outcome: refused-model
# note: vllm 0.8.1 (issue title); merged DeepSeek-V3 GGUF (./merge.gguf) with tokenizer and --hf-config-path from the original DeepSeek-V3 dir (as advised, since transformers cannot convert deepseek2 GGUF config), TP5, 102400 context; "Another error shows" a traceback from vllm serve (GGUF arch deepseek2 not supported in 0.8.1).
CUDA_VISIBLE_DEVICES=0,1,2,3,4 vllm serve ./merge.gguf --tokenizer ../DeepSeek-V3/ --hf-config-path ../DeepSeek-V3/ --max_model_len 102400 --gpu-memory-utilization 0.9 --tensor-parallel-size 5 --trust-remote-code
