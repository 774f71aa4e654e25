# Runs one gpumem command line and compares its exit code, stdout and stderr with the case's
# expected files (tests/cli/expected/<case>.{out,err}); no expected file means "empty".
# With GPUMEM_UPDATE_GOLDEN=1 in the environment it writes the files instead: the golden
# outputs are produced by the tool and reviewed, never edited by hand.
#   -DGPUMEM=<binary> -DCASE=<name> -DEXIT=<code> -DWORKDIR=<dir> -DEXPECTED=<dir> -DARGS=a;b;c
# Cases about output files also give a scratch directory, emptied before the run; afterwards
# it must hold exactly what SETUP put there (no output file, no temporary file):
#   -DSCRATCH=<dir> [-DSETUP=<what>] [-DSOURCE=<file>]
# SETUP prepares a file-system condition in SCRATCH; when this user can get around it (root
# reads a chmod 000 file) the case prints "SKIP:" and the test is reported as skipped.
#   unreadable_scenario  SCRATCH/unreadable.yaml, a copy of SOURCE, mode 000
#   readonly_dir         SCRATCH/readonly/, mode 555
#   file_as_dir          SCRATCH/not-a-dir, a file where a directory is expected
set(prepared "")
if(DEFINED SCRATCH)
  if(EXISTS ${SCRATCH})
    # A failed earlier run may have left its modes behind.
    execute_process(COMMAND chmod -R u+rwx ${SCRATCH})
    file(REMOVE_RECURSE ${SCRATCH})
  endif()
  file(MAKE_DIRECTORY ${SCRATCH})
  if(SETUP STREQUAL "unreadable_scenario")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/unreadable.yaml)
    execute_process(COMMAND chmod 000 ${SCRATCH}/unreadable.yaml)
    execute_process(COMMAND ${CMAKE_COMMAND} -E cat ${SCRATCH}/unreadable.yaml
      RESULT_VARIABLE readable OUTPUT_QUIET ERROR_QUIET)
    if(readable EQUAL 0)
      message("SKIP: this user reads a file of mode 000 (root?); nothing to test")
      return()
    endif()
    list(APPEND prepared ${SCRATCH}/unreadable.yaml)
  elseif(SETUP STREQUAL "readonly_dir")
    file(MAKE_DIRECTORY ${SCRATCH}/readonly)
    execute_process(COMMAND chmod 555 ${SCRATCH}/readonly)
    execute_process(COMMAND ${CMAKE_COMMAND} -E touch ${SCRATCH}/readonly/probe
      RESULT_VARIABLE writable OUTPUT_QUIET ERROR_QUIET)
    if(writable EQUAL 0)
      file(REMOVE ${SCRATCH}/readonly/probe)
      message("SKIP: this user writes into a directory of mode 555 (root?); nothing to test")
      return()
    endif()
    list(APPEND prepared ${SCRATCH}/readonly)
  elseif(SETUP STREQUAL "file_as_dir")
    file(WRITE ${SCRATCH}/not-a-dir "")
    list(APPEND prepared ${SCRATCH}/not-a-dir)
  elseif(DEFINED SETUP)
    message(FATAL_ERROR "${CASE}: unknown SETUP '${SETUP}'")
  endif()
endif()

execute_process(COMMAND ${GPUMEM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out_file ${EXPECTED}/${CASE}.out)
set(err_file ${EXPECTED}/${CASE}.err)
if("$ENV{GPUMEM_UPDATE_GOLDEN}" STREQUAL "1")
  foreach(kind out err)
    if("${${kind}}" STREQUAL "")
      file(REMOVE ${${kind}_file})
    else()
      file(WRITE ${${kind}_file} "${${kind}}")
    endif()
  endforeach()
  message(STATUS "${CASE}: wrote expected output (exit code ${code})")
endif()
set(failed "")
if(NOT code EQUAL EXIT)
  string(APPEND failed "exit code ${code}, expected ${EXIT}\n")
endif()
foreach(kind out err)
  set(expected "")
  if(EXISTS ${${kind}_file})
    file(READ ${${kind}_file} expected)
  endif()
  if(NOT "${${kind}}" STREQUAL "${expected}")
    string(APPEND failed "std${kind} differs.\n--- expected\n${expected}--- actual\n${${kind}}---\n")
  endif()
endforeach()
if(DEFINED SCRATCH)
  file(GLOB_RECURSE left LIST_DIRECTORIES true ${SCRATCH}/*)
  list(REMOVE_ITEM left ${prepared})
  if(left)
    string(REPLACE ";" "\n  " left "${left}")
    string(APPEND failed "files left behind:\n  ${left}\n")
  endif()
  execute_process(COMMAND chmod -R u+rwx ${SCRATCH})
endif()
if(failed)
  message(FATAL_ERROR "${CASE}: ${failed}")
endif()
