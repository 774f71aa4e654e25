// Running a helper program (gnuplot, git) to completion and collecting what it wrote: the
// program is found on PATH and started with an argument vector — never through a shell, so no
// argument is ever parsed as shell syntax. Its standard input is the text given (or
// /dev/null), and its standard output and error are read through pipes, all three at once so
// that none can fill up and stall the child.
#ifndef GPUMEM_CORE_CHILD_PROCESS_H_
#define GPUMEM_CORE_CHILD_PROCESS_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpumem {

struct ChildResult {
  int exit_code = 0;  // the child's exit status; 128 + signal when a signal ended it
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] looked up on PATH) with `input` on its standard input and waits for
// it. kNotFound when the program is not installed; kIoError when it could not be started or
// read. A child that exits before reading all its input is not an error here (its exit code
// tells); gpumem is not killed by SIGPIPE meanwhile.
Result<ChildResult> run_child(const std::vector<std::string>& argv, std::string_view input = {});

}  // namespace gpumem

#endif  // GPUMEM_CORE_CHILD_PROCESS_H_
