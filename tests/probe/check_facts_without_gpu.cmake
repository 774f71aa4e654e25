# On a machine without a GPU `gpumem-probe facts` must stop cleanly: exit code 3, a run.json
# that says CUDA could not count the GPUs, and no other file.
#   cmake -DPROBE=... -DOUT=dir -P check_facts_without_gpu.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${PROBE} facts --out ${OUT} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 3)
  message(FATAL_ERROR "exit code ${rc}, expected 3; stderr:\n${err}")
endif()
file(READ ${OUT}/run.json run)
if(NOT run MATCHES "\"error\": \"could not count the GPUs: cudaGetDeviceCount: ")
  message(FATAL_ERROR "run.json does not name the failed call:\n${run}")
endif()
file(GLOB written ${OUT}/*)
list(LENGTH written n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected only run.json, found: ${written}")
endif()
