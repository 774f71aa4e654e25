# Runs one gpumem command line and compares its exit code, stdout and stderr with the case's
# expected files (tests/cli/expected/<case>.{out,err}); no expected file means "empty".
# With GPUMEM_UPDATE_GOLDEN=1 in the environment it writes the files instead: the golden
# outputs are produced by the tool and reviewed, never edited by hand.
#   -DGPUMEM=<binary> -DCASE=<name> -DEXIT=<code> -DWORKDIR=<dir> -DEXPECTED=<dir> -DARGS=a;b;c
# Cases about output files also give a scratch directory, emptied before the run; afterwards
# it must hold exactly what SETUP put there (no output file, no temporary file):
#   -DSCRATCH=<dir> [-DSETUP=<what>] [-DSOURCE=<file>]
# SETUP prepares a file-system condition in SCRATCH. Conditions that root gets around (it
# reads a chmod 000 file) run gpumem as the unprivileged user nobody (setpriv) when the
# tests run as root, so they are tested in CI too; only where neither works (no setpriv) the
# case prints "SKIP:" and the test is reported as skipped.
#   unreadable_scenario  SCRATCH/unreadable.yaml, a copy of SOURCE, mode 000
#   readonly_dir         SCRATCH/readonly/, mode 555, and SCRATCH/s.yaml, a copy of SOURCE
#   unsearchable_dir     SCRATCH/locked/s.yaml, a copy of SOURCE, in a directory of mode 000
#   file_as_dir          SCRATCH/not-a-dir, a file where a directory is expected
#   symlink_loop         SCRATCH/loop.yaml, a symbolic link to itself
#   input_copy           SCRATCH/s.yaml, a copy of SOURCE
#   output_symlink       SCRATCH/s.yaml (SOURCE) and SCRATCH/out.json, a link to target.json
#   output_fifo          SCRATCH/s.yaml (SOURCE) and SCRATCH/out.json, a FIFO
#   hostile_file_name    SCRATCH/x`touch pwned1`$(touch pwned2)'"q.yaml, a copy of SOURCE,
#                        named @HOSTILE@ in ARGS
#   two_calibrations     SCRATCH/s.yaml (SOURCE) and SCRATCH/model, a copy of MODEL_DIR with a
#                        second PyTorch-process calibration file for the H200
#   none                 nothing
# -DKEEP=a;b names outputs the case must leave in SCRATCH (checked, then removed);
# -DSTDOUT_FILE=<file> sends standard output there (/dev/full) instead of comparing it.
# Yearless log dates are read against this day, not the clock, so that the goldens hold.
set(ENV{GPUMEM_TODAY} 2026-12-07)
set(prepared "")
set(runner "")
if(SETUP MATCHES "^(unreadable_scenario|readonly_dir|unsearchable_dir)$")
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  find_program(SETPRIV setpriv)
  if(uid STREQUAL "0" AND SETPRIV)
    set(runner ${SETPRIV} --reuid=65534 --regid=65534 --clear-groups)
  endif()
endif()
if(runner)
  # nobody must reach the binary, the catalogs and the scratch directory, wherever the build
  # tree lies: all three are put under a fresh directory of /tmp that everyone may search.
  set(base /tmp/gpumem-cli-nobody-${CASE})
  if(EXISTS ${base})
    execute_process(COMMAND chmod -R u+rwx ${base})
    file(REMOVE_RECURSE ${base})
  endif()
  file(MAKE_DIRECTORY ${base})
  file(COPY ${GPUMEM} ${MODEL_DIR} DESTINATION ${base})
  execute_process(COMMAND chmod -R a+rX ${base})
  get_filename_component(binary ${GPUMEM} NAME)
  set(GPUMEM ${base}/${binary})
  set(ARGS --model-dir ${base}/model ${ARGS})
  set(SCRATCH ${base}/scratch)
  set(WORKDIR ${SCRATCH})
endif()
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
    execute_process(COMMAND ${runner} cat ${SCRATCH}/unreadable.yaml
      RESULT_VARIABLE readable OUTPUT_QUIET ERROR_QUIET)
    if(readable EQUAL 0)
      message("SKIP: this user reads a file of mode 000 (root?); nothing to test")
      return()
    endif()
    list(APPEND prepared ${SCRATCH}/unreadable.yaml)
  elseif(SETUP STREQUAL "readonly_dir")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/s.yaml)
    list(APPEND prepared ${SCRATCH}/s.yaml)
    file(MAKE_DIRECTORY ${SCRATCH}/readonly)
    execute_process(COMMAND chmod 555 ${SCRATCH}/readonly)
    execute_process(COMMAND ${runner} touch ${SCRATCH}/readonly/probe
      RESULT_VARIABLE writable OUTPUT_QUIET ERROR_QUIET)
    if(writable EQUAL 0)
      file(REMOVE ${SCRATCH}/readonly/probe)
      message("SKIP: this user writes into a directory of mode 555 (root?); nothing to test")
      return()
    endif()
    list(APPEND prepared ${SCRATCH}/readonly)
  elseif(SETUP STREQUAL "unsearchable_dir")
    file(MAKE_DIRECTORY ${SCRATCH}/locked)
    file(COPY_FILE ${SOURCE} ${SCRATCH}/locked/s.yaml)
    execute_process(COMMAND chmod 000 ${SCRATCH}/locked)
    execute_process(COMMAND ${runner} cat ${SCRATCH}/locked/s.yaml
      RESULT_VARIABLE readable OUTPUT_QUIET ERROR_QUIET)
    if(readable EQUAL 0)
      message("SKIP: this user searches a directory of mode 000 (root?); nothing to test")
      return()
    endif()
    list(APPEND prepared ${SCRATCH}/locked ${SCRATCH}/locked/s.yaml)
  elseif(SETUP STREQUAL "file_as_dir")
    file(WRITE ${SCRATCH}/not-a-dir "")
    list(APPEND prepared ${SCRATCH}/not-a-dir)
  elseif(SETUP STREQUAL "symlink_loop")
    file(CREATE_LINK loop.yaml ${SCRATCH}/loop.yaml SYMBOLIC)
    list(APPEND prepared ${SCRATCH}/loop.yaml)
  elseif(SETUP STREQUAL "input_copy")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/s.yaml)
    list(APPEND prepared ${SCRATCH}/s.yaml)
  elseif(SETUP STREQUAL "output_symlink")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/s.yaml)
    file(WRITE ${SCRATCH}/target.json "kept")
    file(CREATE_LINK target.json ${SCRATCH}/out.json SYMBOLIC)
    list(APPEND prepared ${SCRATCH}/s.yaml ${SCRATCH}/target.json ${SCRATCH}/out.json)
  elseif(SETUP STREQUAL "two_calibrations")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/s.yaml)
    file(COPY ${MODEL_DIR} DESTINATION ${SCRATCH})
    file(COPY_FILE ${SCRATCH}/model/calibration/h200-sxm-141gb-torch.yaml
      ${SCRATCH}/model/calibration/h200-again.yaml)
    file(GLOB_RECURSE copied LIST_DIRECTORIES true ${SCRATCH}/model/*)
    list(APPEND prepared ${SCRATCH}/s.yaml ${SCRATCH}/model ${copied})
  elseif(SETUP STREQUAL "output_fifo")
    file(COPY_FILE ${SOURCE} ${SCRATCH}/s.yaml)
    execute_process(COMMAND mkfifo ${SCRATCH}/out.json)
    list(APPEND prepared ${SCRATCH}/s.yaml ${SCRATCH}/out.json)
  elseif(SETUP STREQUAL "hostile_file_name")
    set(hostile "x`touch pwned1`$(touch pwned2)'\"q.yaml")
    file(COPY_FILE ${SOURCE} "${SCRATCH}/${hostile}")
    list(APPEND prepared "${SCRATCH}/${hostile}")
    # The name reaches gpumem as one argument, written @HOSTILE@ in ARGS.
    string(REPLACE "@HOSTILE@" "${hostile}" ARGS "${ARGS}")
  elseif(DEFINED SETUP AND NOT SETUP STREQUAL "none")
    message(FATAL_ERROR "${CASE}: unknown SETUP '${SETUP}'")
  endif()
endif()

if(DEFINED STDOUT_FILE)
  execute_process(COMMAND ${runner} ${GPUMEM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
    RESULT_VARIABLE code OUTPUT_FILE ${STDOUT_FILE} ERROR_VARIABLE err)
  set(out "")
else()
  execute_process(COMMAND ${runner} ${GPUMEM} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
    RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
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
  execute_process(COMMAND chmod -R u+rwx ${SCRATCH})
  foreach(kept ${KEEP})
    if(NOT EXISTS ${SCRATCH}/${kept})
      string(APPEND failed "expected output ${kept} was not written\n")
    endif()
    file(REMOVE ${SCRATCH}/${kept})
  endforeach()
  file(GLOB_RECURSE left LIST_DIRECTORIES true ${SCRATCH}/*)
  if(prepared)
    list(REMOVE_ITEM left ${prepared})
  endif()
  if(left)
    string(REPLACE ";" "\n  " left "${left}")
    string(APPEND failed "files left behind:\n  ${left}\n")
  endif()
  execute_process(COMMAND chmod -R u+rwx ${SCRATCH})
endif()
if(runner)
  file(REMOVE_RECURSE ${base})
endif()
if(failed)
  message(FATAL_ERROR "${CASE}: ${failed}")
endif()
