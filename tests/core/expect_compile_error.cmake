# Builds TARGET in BUILD_DIR and succeeds only if the build fails with an error matching
# PATTERN: a compile-fail test that cannot pass because of an unrelated error.
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must not")
endif()
if(NOT "${out}${err}" MATCHES "${PATTERN}")
  message(FATAL_ERROR "${TARGET} failed for another reason:\n${out}${err}")
endif()
message(STATUS "${TARGET} failed to compile, as required")
