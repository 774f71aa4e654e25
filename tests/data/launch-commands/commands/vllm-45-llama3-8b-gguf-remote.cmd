# source: https://github.com/vllm-project/vllm/issues/17661
# engine: vllm
# gpu: rtx-4090
# gpu-note: chosen: the thread names no GPU
# forms: vllm-serve
# outcome: refused-model
# note: vllm 0.8.4 (V0 engine forced with VLLM_USE_V1=0); NoelJacob/Meta-Llama-3-8B-Instruct-Q4_K_M-GGUF (HF repo id) with --load-format gguf, config/tokenizer from meta-llama/Meta-Llama-3-8B-Instruct; "This didn't work". Maintainer Isotr0py: pass the local path of the GGUF file, loading GGUF from a remote repo was not supported yet (later added, cf. PR #29582 "vllm serve unsloth/Qwen3-0.6B-GGUF:IQ1_S"). Leading space kept as in the issue.
 VLLM_USE_V1=0 vllm serve NoelJacob/Meta-Llama-3-8B-Instruct-Q4_K_M-GGUF  --max-model-len 4096 --gpu-memory-utilization 0.90   --distributed-executor-backend mp  --hf-config-path meta-llama/Meta-Llama-3-8B-Instruct --tokenizer meta-llama/Meta-Llama-3-8B-Instruct  --load-format gguf
