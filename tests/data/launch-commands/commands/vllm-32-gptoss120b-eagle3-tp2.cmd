# source: https://github.com/vllm-project/vllm/issues/26328
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU; the count comes from --tensor-parallel 2
# forms: vllm-serve, json-value, local-path-model
# outcome: starts
# note: v0.11.0 (vllm docker container, per the issue); openai/gpt-oss-120b (local /models/gpt-oss-120b) + nvidia/gpt-oss-120b-Eagle3 draft; reporter says adding the speculative-config makes WorkerProc fail to start while "Loading drafter model..." (issue open). Note `--tensor-parallel 2` is an abbreviated form of --tensor-parallel-size, accepted by argparse prefix matching. Indentation and line breaks (no backslashes) kept as in the issue.
              vllm serve /models/gpt-oss-120b
              --gpu-memory-utilization 0.92  --trust-remote-code --max-model-len 65536
              --served-model-name gpt-oss-120b --enable-auto-tool-choice --tensor-parallel 2
              --tool-call-parser openai --reasoning-parser openai_gptoss
              --speculative-config '{"model": "nvidia/gpt-oss-120b-Eagle3", "num_speculative_tokens": 3, "method":"eagle3", "draft_tensor_parallel_size":1}'
