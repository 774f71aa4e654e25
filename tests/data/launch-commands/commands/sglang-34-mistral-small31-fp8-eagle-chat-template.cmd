# source: https://github.com/sgl-project/sglang/pull/5099 (comment by FireMasterK, 2025-04-25)
# engine: sglang
# gpu: h100-sxm-80gb
# gpu-note: chosen: the thread names no GPU
# forms: python-m-sglang, flag=value
# outcome: refused-model
# note: not stated (April 2025; container log shows an NVIDIA Triton Inference Server base image); RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-FP8-dynamic with a 0.5B FP8 draft (kavin1337/Mistral-Small-3.1-DRAFT-0.5B-FP8-Dynamic) via EAGLE, on the PR adding Mistral 3.1 VLM support; commenter "Ran into an error when running it like so" (error log attached). Uses --chat-template=mistral (= form).
python3 -m sglang.launch_server --model RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-FP8-dynamic --chat-template=mistral --speculative-algorithm EAGLE --speculative-draft-model-path kavin1337/Mistral-Small-3.1-DRAFT-0.5B-FP8-Dynamic --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16 --host 0.0.0.0 --port 30000
