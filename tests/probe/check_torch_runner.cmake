# The torch probe's runner accepts what gpumem export-ops writes: every one-GPU probe
# scenario is exported and checked by `run_ops.py --check` (no GPU, no torch needed), and so
# is the runner's own self-test trace; `alloc_diff.py from-ops` turns each export into an
# allocator sequence. Multi-GPU scenarios are not: their custom all-reduce
# uses CUDA IPC, which the runner refuses by name.
#   cmake -DGPUMEM=... -DPYTHON=... -DSOURCE=... -DOUT=... -P check_torch_runner.cmake
file(REMOVE_RECURSE ${OUT})
file(GLOB scenarios ${SOURCE}/scenarios/probe/h200x1-*.yaml)
list(LENGTH scenarios count)
if(count LESS 9)
  message(FATAL_ERROR "expected the 9 one-GPU probe scenarios, found ${count}")
endif()
set(runner ${SOURCE}/src/probe/torch/run_ops.py)
foreach(scenario ${scenarios})
  get_filename_component(name ${scenario} NAME_WE)
  execute_process(COMMAND ${GPUMEM} export-ops ${scenario} -o ${OUT}/${name}
                  WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "export-ops ${name}: exit ${rc}: ${err}")
  endif()
  execute_process(COMMAND ${PYTHON} ${runner} ${OUT}/${name}/ops.rank0.json --check
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run_ops.py --check ${name}: exit ${rc}: ${err}")
  endif()
  # The allocator differential reads the same export (reports/alloc-differential/engine).
  execute_process(COMMAND ${PYTHON} ${SOURCE}/src/probe/torch/alloc_diff.py from-ops
                          ${OUT}/${name}/ops.rank0.json --out ${OUT}/ops_engine-${name}.json
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "alloc_diff.py from-ops ${name}: exit ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${PYTHON} ${runner} ${SOURCE}/src/probe/torch/selftest_ops.json --check
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run_ops.py --check selftest_ops.json: exit ${rc}: ${err}")
endif()
