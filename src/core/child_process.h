// Running a helper program (gnuplot) to completion and collecting what it wrote: the program
// is found on PATH, its standard input is /dev/null, and its standard output and error are
// read through pipes, both at once so that neither can fill up and stall the child.
#ifndef GPUMEM_CORE_CHILD_PROCESS_H_
#define GPUMEM_CORE_CHILD_PROCESS_H_

#include <string>
#include <vector>

#include "core/status.h"

namespace gpumem {

struct ChildResult {
  int exit_code = 0;  // the child's exit status; 128 + signal when a signal ended it
  std::string out;
  std::string err;
};

// Runs `argv` (argv[0] looked up on PATH) and waits for it. kNotFound when the program is
// not installed; kIoError when it could not be started or read.
Result<ChildResult> run_child(const std::vector<std::string>& argv);

}  // namespace gpumem

#endif  // GPUMEM_CORE_CHILD_PROCESS_H_
