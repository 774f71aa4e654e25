# source: https://github.com/vllm-project/vllm/issues/17327
# engine: vllm
# gpu: h20-96gbx4
# forms: vllm-serve, local-path-model
# outcome: does-not-start
# note: the comment reports an out-of-memory failure on 4 x H20 96GB with vLLM 0.8.5
vllm serve ./Qwen3-235B-A22B --tensor-parallel-size 4
