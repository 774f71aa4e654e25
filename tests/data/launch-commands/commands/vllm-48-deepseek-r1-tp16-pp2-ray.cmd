# source: https://github.com/vllm-project/vllm/issues/20752 (comment by eicherseiji, 2025-07-11)
# engine: vllm
# gpu: h100-sxm-80gb
# gpu-note: chosen: the comment names no GPU; the count comes from TP 16 x PP 2
# forms: vllm-serve, local-path-model
# outcome: refused-command
# note: vllm==0.8.5.post1 (reporter); DeepSeek-R1 at pp=2, tp=16; maintainer suggests forcing V1 with the Ray executor because the log showed "Pipeline Parallelism without Ray distributed executor is not supported by the V1 Engine. Falling back to V0". WRONG AS TYPED: the flags are written with an em dash ("—tensor_parallel_size", "—-pipeline_parallel_size") instead of "--", which argparse would not recognise (typographic auto-replacement). Reporter later tried tp=2, pp=2 and it still hung.
VLLM_USE_V1=1 vllm serve /mnt/hdfs/models/DeepSeek-R1 —tensor_parallel_size 16 —-pipeline_parallel_size 2 --distributed-executor-backend ray
