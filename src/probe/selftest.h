// `gpumem-probe selftest`: every call of the two seams, once, on real GPUs — the check that
// the probe's runtime works on a machine before measurements are trusted.
//
// Each rank initialises its context, allocates, launches the touch kernel, provokes an
// out-of-memory (which must come back as kOutOfMemory, leaving memory as it was), takes the
// MIN of free memory over all ranks, exchanges and opens IPC handles, creates a communicator
// from the NCCL settings of its environment, runs a small and a large all-reduce, captures a
// graph with an allocation, a kernel and an all-reduce, and loads cuBLAS. After every step it
// samples memory. The rank writes selftest.rank<R>.json (atomically) to the output directory.
#ifndef GPUMEM_PROBE_SELFTEST_H_
#define GPUMEM_PROBE_SELFTEST_H_

#include <chrono>
#include <filesystem>

#include "probe/rank_env.h"

namespace gpumem::probe {

// Runs the self-test as one rank; returns the exit code (0: every step did what it should).
int run_selftest_rank(const RankEnv& env, const std::filesystem::path& out_dir,
                      std::chrono::milliseconds timeout);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_SELFTEST_H_
