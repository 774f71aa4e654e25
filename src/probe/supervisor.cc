#include "probe/supervisor.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace gpumem::probe {
namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop_requested = 0;

void on_stop_signal(int) { g_stop_requested = 1; }

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string_view name_of(std::string_view assignment) {
  return assignment.substr(0, assignment.find('='));
}

}  // namespace

std::string_view job_state_name(JobState s) {
  switch (s) {
    case JobState::kOk:
      return "ok";
    case JobState::kFailed:
      return "failed";
    case JobState::kTimedOut:
      return "timed_out";
    case JobState::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

std::string describe_exit(const ChildOutcome& c) {
  if (c.signal != 0) {
    return fmt::format("was killed by signal {} ({})", c.signal, ::strsignal(c.signal));
  }
  return fmt::format("exited with code {}", c.exit_code);
}

Supervisor::Supervisor(std::chrono::milliseconds kill_grace) : kill_grace_(kill_grace) {}

Supervisor::~Supervisor() {
  for (Job& job : jobs_) {
    const bool alive = std::any_of(job.children.begin(), job.children.end(),
                                   [](const Child& c) { return !c.done; });
    if (alive) ::killpg(job.pgid, SIGKILL);
    for (Child& c : job.children) {
      if (!c.done) ::waitpid(c.outcome.pid, nullptr, 0);
    }
  }
}

Status Supervisor::start(JobSpec spec) {
  if (spec.children.empty())
    return invalid_input(fmt::format("job '{}' has no processes", spec.name));
  // Everything the children need is laid out before the first fork: between fork and
  // execve a child only makes system calls.
  std::vector<std::vector<char*>> argvs;
  std::vector<std::vector<char*>> envps;
  for (ChildSpec& c : spec.children) {
    if (c.argv.empty())
      return invalid_input(fmt::format("job '{}': {} has no program", spec.name, c.label));
    std::vector<char*>& a = argvs.emplace_back();
    for (std::string& s : c.argv) a.push_back(s.data());
    a.push_back(nullptr);
    std::vector<char*>& e = envps.emplace_back();
    for (std::string& s : c.env) e.push_back(s.data());
    e.push_back(nullptr);
  }

  Job job;
  job.name = spec.name;
  job.timeout = spec.timeout;
  job.started = Clock::now();
  job.deadline = job.started + spec.timeout;
  const pid_t parent = ::getpid();
  for (std::size_t i = 0; i < spec.children.size(); ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int err = errno;
      if (job.pgid != 0) ::killpg(job.pgid, SIGKILL);
      for (Child& c : job.children) ::waitpid(c.outcome.pid, nullptr, 0);
      return io_error(fmt::format("fork() for job '{}' failed: {}", spec.name, std::strerror(err)));
    }
    if (pid == 0) {
      ::setpgid(0, job.pgid);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(126);
      ::execve(argvs[i][0], argvs[i].data(), envps[i].data());
      static constexpr char kMsg[] = "gpumem-probe: execve of a child process failed\n";
      [[maybe_unused]] const ssize_t w = ::write(2, kMsg, sizeof kMsg - 1);
      ::_exit(127);
    }
    if (job.pgid == 0) job.pgid = pid;
    // Set from both sides so that the group exists before either of us relies on it.
    ::setpgid(pid, job.pgid);
    Child child;
    child.outcome.label = spec.children[i].label;
    child.outcome.pid = pid;
    job.children.push_back(std::move(child));
  }
  jobs_.push_back(std::move(job));
  return Status::ok_status();
}

void Supervisor::terminate(Job& job, JobState state, std::string message) {
  if (job.terminating) return;
  job.terminating = true;
  job.state = state;
  job.message = std::move(message);
  job.term_sent = Clock::now();
  ::killpg(job.pgid, SIGTERM);
}

std::vector<JobOutcome> Supervisor::poll() {
  std::vector<JobOutcome> ended;
  const auto now = Clock::now();
  for (Job& job : jobs_) {
    for (Child& c : job.children) {
      if (c.done) continue;
      int st = 0;
      const pid_t r = ::waitpid(c.outcome.pid, &st, WNOHANG);
      if (r == 0) continue;
      c.done = true;
      if (r < 0) continue;  // not our child any more (ECHILD): nothing to report
      if (WIFEXITED(st)) c.outcome.exit_code = WEXITSTATUS(st);
      if (WIFSIGNALED(st)) c.outcome.signal = WTERMSIG(st);
      const bool failed = c.outcome.signal != 0 || c.outcome.exit_code != 0;
      if (failed && !job.terminating) {
        terminate(job, JobState::kFailed,
                  fmt::format("{} (pid {}) {}", c.outcome.label, c.outcome.pid,
                              describe_exit(c.outcome)));
      }
    }
    const bool alive = std::any_of(job.children.begin(), job.children.end(),
                                   [](const Child& c) { return !c.done; });
    if (alive && !job.terminating && now >= job.deadline) {
      terminate(
          job, JobState::kTimedOut,
          fmt::format("timed out after {} s", static_cast<double>(job.timeout.count()) / 1000));
    }
    if (alive && job.terminating && !job.killed && now - job.term_sent >= kill_grace_) {
      ::killpg(job.pgid, SIGKILL);
      job.killed = true;
    }
  }
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    const bool alive = std::any_of(it->children.begin(), it->children.end(),
                                   [](const Child& c) { return !c.done; });
    if (alive) {
      ++it;
      continue;
    }
    JobOutcome out;
    out.name = it->name;
    out.state = it->state;
    out.message = it->message;
    out.wall_s = seconds_between(it->started, now);
    for (const Child& c : it->children) out.children.push_back(c.outcome);
    ended.push_back(std::move(out));
    it = jobs_.erase(it);
  }
  return ended;
}

void Supervisor::interrupt_all() {
  for (Job& job : jobs_) terminate(job, JobState::kInterrupted, "interrupted");
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool stop_requested() { return g_stop_requested != 0; }

JobOutcome run_job(JobSpec job, std::chrono::milliseconds kill_grace) {
  Supervisor sup(kill_grace);
  const std::string name = job.name;
  if (Status s = sup.start(std::move(job)); !s.ok()) {
    JobOutcome out;
    out.name = name;
    out.state = JobState::kFailed;
    out.message = s.message();
    return out;
  }
  bool interrupted = false;
  while (true) {
    if (stop_requested() && !interrupted) {
      sup.interrupt_all();
      interrupted = true;
    }
    std::vector<JobOutcome> ended = sup.poll();
    if (!ended.empty()) return std::move(ended.front());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<std::string> environment_with(std::span<const std::pair<std::string, std::string>> set,
                                          std::span<const std::string> unset) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = name_of(entry);
    const bool drop =
        std::any_of(unset.begin(), unset.end(), [&](const std::string& u) { return u == name; }) ||
        std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == name; });
    if (!drop) out.emplace_back(entry);
  }
  for (const auto& [name, value] : set) out.push_back(name + "=" + value);
  return out;
}

Result<std::string> self_executable() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0)
    return io_error(fmt::format("readlink(/proc/self/exe) failed: {}", std::strerror(errno)));
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

}  // namespace gpumem::probe
