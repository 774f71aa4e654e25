// The process exit codes of every gpumem command, named in one place.
#ifndef GPUMEM_CORE_EXIT_CODES_H_
#define GPUMEM_CORE_EXIT_CODES_H_

namespace gpumem {

enum ExitCode : int {
  kExitOk = 0,           // the command did what was asked; a simulated start-up fits
  kExitDoesNotFit = 1,   // a scenario runs out of memory at some step (a finding)
  kExitBadInput = 2,     // input is wrong: file:line:col messages were printed
  kExitInternal = 3,     // gpumem itself failed
  kExitCheckFailed = 4,  // check/diff found disagreement beyond tolerance or a change
};

}  // namespace gpumem

#endif  // GPUMEM_CORE_EXIT_CODES_H_
