# source: https://github.com/sgl-project/sglang/issues/8833 (comment by chensiye-csy, 2025-08-08)
# engine: sglang
# gpu: h20-96gb
# forms: python-m-sglang, -tp
# outcome: refused-flag
# note: not stated (Aug 2025, gpt-oss day-0 tracking issue; source checkout); openai/gpt-oss-120b with --tp 2 and single-dash "-dp 4"; "I have successfully deployed the server", but a request whose content is "one token" fails with "ValueError: Expected 2 output messages (reasoning and final), but got 3."
python3 -m sglang.launch_server --model openai/gpt-oss-120b --tp 2 -dp 4 --port 20111
