# Writes the JSON of each command into OUT, then validates it and every golden ledger.
#   -DGPUMEM=<binary> -DPYTHON=<python3> -DSOURCE=<repository> -DOUT=<dir>
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(commands
  "simulate\;scenarios/h200x1-llama-3.1-8b.yaml\;--format\;json" "simulate-sglang.json"
  "simulate\;scenarios/seed-kimi-k2-pcie8-vllm.yaml\;--format\;json" "simulate-vllm.json"
  "simulate\;scenarios/seed-kimi-k2-pcie8-mfs055.yaml\;--format\;json" "simulate-fails.json"
  "sweep\;scenarios/h200x1-llama-3.1-8b.yaml\;--vary\;--mem-fraction-static=0.5,0.99\;--vary\;--tp-size=1,3\;--format\;json" "sweep.json"
  "sweep\;--gpu\;h200x2\;--vary\;--mem-fraction-static=0.8,0.9\;--min-headroom\;12GiB\;--format\;json\;--\;python\;-m\;sglang.launch_server\;--model-path\;llama-3.1-8b-instruct\;--dp\;2" "sweep-dp-tight.json"
  "plan\;qwen3-30b-a3b\;--gpus\;h100x2\;--format\;json\;-j\;2" "plan.json"
  "simulate\;--min-headroom\;1GiB\;--format\;json\;--gpu\;h100\;--\;vllm\;serve\;llama-3.1-8b-instruct\;--gpu-memory-utilization\;0.98" "simulate-tight.json"
  "explain\;tests/data/engine-logs/case37-sglang-l4-x4-qwq-32b-tp4.log\;--scenario\;tests/data/engine-logs/case37-sglang-l4-x4-qwq-32b-tp4.yaml\;--format\;json" "explain-sglang.json"
  "explain\;tests/data/engine-logs/case22-vllm-rtx4090-x2-r1-distill-qwen-14b-tp2-kv-too-small.log\;--gpu\;rtx-4090\;--model\;deepseek-r1-distill-qwen-14b\;--format\;json" "explain-vllm.json"
  "explain\;tests/data/engine-logs/sglang-h200-x8-deepseek-v4-pro-fp8-no-kv-room.log\;--gpu\;h200\;--format\;json" "explain-partial.json")
# Pairs: the command's arguments, then the file its standard output goes to.
list(LENGTH commands n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET commands ${i} c)
  list(GET commands ${j} name)
  string(REPLACE "\\;" ";" args "${c}")
  execute_process(COMMAND ${GPUMEM} ${args} WORKING_DIRECTORY ${SOURCE}
    RESULT_VARIABLE code ERROR_VARIABLE err OUTPUT_FILE ${OUT}/${name})
  # 0 starts, 1 does not fit: both write their JSON.
  if(NOT code EQUAL 0 AND NOT code EQUAL 1)
    message(FATAL_ERROR "gpumem ${args} exited ${code}: ${err}")
  endif()
endforeach()
file(GLOB written ${OUT}/*.json)
file(GLOB goldens ${SOURCE}/reports/scenarios/*.json)
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/schema/validate_json.py ${SOURCE}/src --
                        ${written} ${goldens}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${out}${err}")
endif()
message(STATUS "${out}")
