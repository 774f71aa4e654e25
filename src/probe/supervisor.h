// Starts the probe's child processes and makes sure none outlives its job.
//
// A job is a set of processes that belong together (the ranks of one measurement or of one
// probe run). Each job's processes form one process group, so that the supervisor can signal
// all of them at once; each child also asks the kernel to kill it when the supervisor dies
// (PR_SET_PDEATHSIG), so that a crashed or killed supervisor leaves nothing behind.
//
// Rules: when one process of a job fails (non-zero exit, killed by a signal) or the job runs
// past its timeout, the others get SIGTERM and, after a grace period, SIGKILL — a rank that
// waits for a dead peer would otherwise sit out its whole timeout. The supervisor never
// blocks: `poll` reaps what has exited and returns the jobs that are over, so that several
// jobs (one per GPU) can run side by side.
//
// Children are started with fork + execve of a fully prepared argv/envp, so nothing that is
// unsafe after fork (allocation, locks) runs in the child before exec; the parent creates no
// CUDA context and may hold threads.
#ifndef GPUMEM_PROBE_SUPERVISOR_H_
#define GPUMEM_PROBE_SUPERVISOR_H_

#include <sys/types.h>

#include <chrono>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace gpumem::probe {

struct ChildSpec {
  std::string label;              // "rank 1", for messages
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::string> env;   // the child's whole environment, "NAME=value"
};

struct JobSpec {
  std::string name;
  std::vector<ChildSpec> children;
  std::chrono::milliseconds timeout{120'000};
};

struct ChildOutcome {
  std::string label;
  pid_t pid = 0;
  int exit_code = -1;  // when it exited normally
  int signal = 0;      // when a signal ended it
};

enum class JobState { kOk, kFailed, kTimedOut, kInterrupted };

std::string_view job_state_name(JobState s);

struct JobOutcome {
  std::string name;
  JobState state = JobState::kOk;
  std::string message;  // why it failed: the first child that failed, or the timeout
  double wall_s = 0;
  std::vector<ChildOutcome> children;
};

class Supervisor {
 public:
  explicit Supervisor(std::chrono::milliseconds kill_grace = std::chrono::milliseconds(5000));
  ~Supervisor();  // kills and reaps whatever still runs
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts every child of the job in a new process group. On failure nothing of the job is
  // left running.
  Status start(JobSpec job);

  // Reaps exited children, enforces failures, timeouts and the kill grace period, and
  // returns the jobs that ended since the last call. Never blocks.
  std::vector<JobOutcome> poll();

  std::size_t running_jobs() const { return jobs_.size(); }

  // Stops every job (the supervisor itself was asked to stop); they end as kInterrupted.
  void interrupt_all();

 private:
  struct Child {
    ChildOutcome outcome;
    bool done = false;
  };
  struct Job {
    std::string name;
    pid_t pgid = 0;
    std::vector<Child> children;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point deadline;
    std::chrono::milliseconds timeout{};
    JobState state = JobState::kOk;
    std::string message;
    bool terminating = false;
    bool killed = false;
    std::chrono::steady_clock::time_point term_sent;
  };

  void terminate(Job& job, JobState state, std::string message);

  std::chrono::milliseconds kill_grace_;
  std::vector<Job> jobs_;
};

// Makes SIGINT, SIGTERM and SIGHUP only record that a stop was asked for, so that a
// supervising loop can stop its children (and reap them) before it exits.
void install_stop_handlers();
bool stop_requested();

// Starts `job` and waits for it to end, polling every 20 ms; a stop request interrupts it.
JobOutcome run_job(JobSpec job, std::chrono::milliseconds kill_grace);

// This process's environment with `set` assigned and `unset` removed, as "NAME=value"
// strings for ChildSpec::env.
std::vector<std::string> environment_with(std::span<const std::pair<std::string, std::string>> set,
                                          std::span<const std::string> unset);

// The path of the running executable (/proc/self/exe), for starting copies of itself.
Result<std::string> self_executable();

// "exited with code 3", "was killed by signal 9 (Killed)".
std::string describe_exit(const ChildOutcome& c);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_SUPERVISOR_H_
