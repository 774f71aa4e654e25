# source: https://github.com/sgl-project/sglang/blob/0f4513c2f46be5ae1e0d9bf0a8f7b5471a8b3d16/docs/basic_usage/deepseek_v3.md
# engine: sglang
# gpu: h20-96gbx8
# gpu-note: the page's "1 * H20 node"; the 96 GB H20 chosen
# forms: python3-m-sglang.launch_server, --mem-fraction-static, multi-line
# outcome: refused-model
python3 -m sglang.launch_server \
  --model deepseek-ai/DeepSeek-V3-0324 \
  --tp 8 \
  --port 30000 \
  --host 0.0.0.0 \
  --mem-fraction-static 0.9 \
  --tool-call-parser deepseekv3 \
  --chat-template ./examples/chat_template/tool_chat_template_deepseekv3.jinja
