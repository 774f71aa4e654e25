#include "core/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace gpumem {
namespace {

// Closes its descriptors on every path out of run_child.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// Blocks SIGPIPE on this thread while the child's input is written, so that a child which
// exits early makes write() fail with EPIPE instead of killing gpumem; a SIGPIPE raised
// meanwhile is consumed before the mask is restored.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    const timespec none{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &none) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
};

}  // namespace

Result<ChildResult> run_child(const std::vector<std::string>& argv, std::string_view input) {
  Pipe in, out, err;
  if (::pipe2(in.fd, O_CLOEXEC) != 0 || ::pipe2(out.fd, O_CLOEXEC) != 0 ||
      ::pipe2(err.fd, O_CLOEXEC) != 0) {
    return io_error(argv[0] + ": cannot create a pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) return not_found(argv[0] + ": not found on PATH");
  if (spawned != 0) return io_error(argv[0] + ": cannot start: " + std::strerror(spawned));
  in.close_end(0);
  out.close_end(1);
  err.close_end(1);
  if (input.empty()) in.close_end(1);  // end of input at once
  if (in.fd[1] >= 0) ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);

  SigpipeBlock no_sigpipe;
  ChildResult result;
  std::array<pollfd, 3> fds = {pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0},
                               pollfd{in.fd[1], POLLOUT, 0}};
  std::array<std::string*, 2> sinks = {&result.out, &result.err};
  int open_outputs = 2;
  std::array<char, 65536> buffer;
  while (open_outputs > 0 || fds[2].fd >= 0) {
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // end of file (or a broken pipe): stop polling it
        --open_outputs;
      }
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      const ssize_t n = ::write(fds[2].fd, input.data(), input.size());
      if (n > 0) input.remove_prefix(static_cast<size_t>(n));
      const bool failed = n < 0 && errno != EINTR && errno != EAGAIN;
      if (input.empty() || failed || (fds[2].revents & (POLLERR | POLLHUP)) != 0) {
        in.close_end(1);  // all written, or the child stopped reading
        fds[2].fd = -1;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return io_error(argv[0] + ": cannot wait: " + std::strerror(errno));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace gpumem
