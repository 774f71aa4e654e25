# source: https://github.com/vllm-project/recipes/blob/00143a1a4aace5143b6825bcaa0fc30505015c61/OpenAI/GPT-OSS.md
# engine: vllm
# gpu: b200x8
# gpu-note: chosen: the recipe runs on 8 AMD MI300X, not in the catalog; the B200 is the catalog GPU closest to its 192 GB
# forms: vllm-serve, flag=value, dotted-json-flag
# outcome: refused-flag
vllm serve openai/gpt-oss-120b --tensor-parallel-size=8 --attention-backend ROCM_AITER_UNIFIED_ATTN -cc.pass_config.fuse_rope_kvcache=True -cc.use_inductor_graph_partition=True --gpu-memory-utilization 0.95 --block-size=64
