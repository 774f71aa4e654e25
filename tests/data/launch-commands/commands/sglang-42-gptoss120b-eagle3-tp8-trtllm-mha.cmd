# source: https://github.com/sgl-project/sglang/issues/12567 (comment by harrisonlimh, 2025-11-05)
# engine: sglang
# gpu: b200
# gpu-note: chosen: the thread names no GPU; trtllm_mha runs on Blackwell
# forms: python-m-sglang, flag=value, local-path-model
# outcome: refused-model
# note: not stated (Nov 2025, after a fix by hnyls2002 for the fatal server issue); gpt-oss-120b (local /tmp path) with lmsys/EAGLE3-gpt-oss-120b-bf16 draft, priority scheduling, --flag=value forms; issue "gpt-oss-120b + spec + overlap scheduler issues (garbage output & server failure on tool_choice required)"; after the fix the server no longer dies but the commenter still sees a parser issue.
python -m sglang.launch_server --port=7080 --model=/tmp/openai/gpt-oss-120b --trust-remote-code --tp=8 --max-queued-requests=256 --tool-call-parser=gpt-oss --reasoning-parser=gpt-oss --enable-metrics --enable-priority-scheduling --schedule-low-priority-values-first --priority-scheduling-preemption-threshold=1000 --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --attention-backend trtllm_mha --max-running-requests=128 --speculative-algorithm EAGLE3 --speculative-draft-model-path=/tmp/lmsys/EAGLE3-gpt-oss-120b-bf16
