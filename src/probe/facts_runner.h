// The supervising half of `gpumem-probe facts`: starts one worker process (or one per rank)
// for each measurement of the plan, runs single-GPU measurements side by side on different
// GPUs and multi-GPU ones alone, enforces each measurement's timeout and the whole run's
// time budget, and merges what the workers wrote into one JSON file per group.
//
// The parent never touches CUDA: it learns the GPU count from a worker, so that no CUDA
// state of its own can be inherited by, or distort, a measurement. Worker results and NCCL
// debug logs go to a scratch directory outside DIR, so DIR holds only the final files
// (written atomically): run.json plus one file per measurement group.
#ifndef GPUMEM_PROBE_FACTS_RUNNER_H_
#define GPUMEM_PROBE_FACTS_RUNNER_H_

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "probe/facts_plan.h"

namespace gpumem::probe {

struct FactsOptions {
  std::filesystem::path out_dir;
  std::string self_exe;  // this binary, started as "worker"
  std::chrono::milliseconds job_timeout{120'000};
  std::chrono::seconds budget{285};  // after this, remaining jobs are skipped
  int nccl_ranks = 0;                // 0: min(GPU count, 2)
  std::vector<FactGroup> groups;     // empty: all groups
  bool keep_work = false;            // keep the scratch directory
};

// Runs the measurements and writes the files. Returns the process exit code: 0 when every
// measurement that could run succeeded, kExitInternal otherwise (the files are written in
// both cases; run.json says what failed and why).
int run_facts(const FactsOptions& options);

// How many GPUs CUDA sees, asked of a child process (a worker of kind count_gpus writing
// into `work_dir`), so that the calling process never initialises CUDA itself.
Result<int> count_gpus_in_child(const std::string& self_exe, const std::filesystem::path& work_dir,
                                std::chrono::milliseconds timeout);

// The command line of a facts worker.
std::vector<std::string> worker_argv(const std::string& self_exe, FactKind kind, int index,
                                     const std::filesystem::path& result,
                                     std::chrono::milliseconds timeout);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_FACTS_RUNNER_H_
