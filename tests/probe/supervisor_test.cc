#include "probe/supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "probe/atomic_file.h"

namespace gpumem::probe {
namespace {

using namespace std::chrono_literals;

ChildSpec sh(std::string label, std::string script) {
  return ChildSpec{
      std::move(label), {"/bin/sh", "-c", std::move(script)}, environment_with({}, {})};
}

JobSpec job(std::vector<ChildSpec> children, std::chrono::milliseconds timeout = 30s) {
  return JobSpec{"test job", std::move(children), timeout};
}

// True when `pid` no longer runs (gone, or a zombie waiting for init to reap it).
bool gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!stat || !std::getline(stat, line)) return true;
    const std::size_t close = line.rfind(')');
    if (close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z')
      return true;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

TEST(Supervisor, AllChildrenSucceed) {
  const JobOutcome out = run_job(job({sh("rank 0", "exit 0"), sh("rank 1", "true")}), 1s);
  EXPECT_EQ(out.state, JobState::kOk);
  EXPECT_EQ(out.message, "");
  ASSERT_EQ(out.children.size(), 2u);
  EXPECT_EQ(out.children[0].exit_code, 0);
  EXPECT_EQ(out.children[1].exit_code, 0);
}

TEST(Supervisor, OneFailureStopsTheOthers) {
  const auto t0 = std::chrono::steady_clock::now();
  const JobOutcome out =
      run_job(job({sh("rank 0", "sleep 30"), sh("rank 1", "sleep 0.2; exit 3")}), 5s);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_EQ(out.state, JobState::kFailed);
  ASSERT_EQ(out.children.size(), 2u);
  EXPECT_EQ(out.message,
            "rank 1 (pid " + std::to_string(out.children[1].pid) + ") exited with code 3");
  EXPECT_EQ(out.children[0].signal, SIGTERM);
  EXPECT_EQ(describe_exit(out.children[0]), "was killed by signal 15 (Terminated)");
  EXPECT_TRUE(gone(out.children[0].pid));
}

TEST(Supervisor, GrandchildrenDieWithTheJob) {
  const std::filesystem::path pid_file =
      std::filesystem::temp_directory_path() / ("gpumem-sup-" + std::to_string(::getpid()));
  const JobOutcome out =
      run_job(job({sh("rank 0", "sleep 30 & echo $! > " + pid_file.string() + "; wait"),
                   sh("rank 1", "sleep 0.3; exit 1")}),
              5s);
  EXPECT_EQ(out.state, JobState::kFailed);
  auto text = read_file(pid_file, InputKind::kTrace);
  ASSERT_TRUE(text.ok());
  std::filesystem::remove(pid_file);
  EXPECT_TRUE(gone(std::stoi(*text)));
}

TEST(Supervisor, TimeoutKillsTheJob) {
  const JobOutcome out = run_job(job({sh("rank 0", "sleep 30")}, 300ms), 1s);
  EXPECT_EQ(out.state, JobState::kTimedOut);
  EXPECT_EQ(out.message, "timed out after 0.3 s");
  ASSERT_EQ(out.children.size(), 1u);
  EXPECT_EQ(out.children[0].signal, SIGTERM);
  EXPECT_GE(out.wall_s, 0.3);
}

TEST(Supervisor, IgnoredTermIsFollowedByKill) {
  const JobOutcome out =
      run_job(job({sh("rank 0", "trap '' TERM; sleep 30; sleep 30")}, 200ms), 300ms);
  EXPECT_EQ(out.state, JobState::kTimedOut);
  ASSERT_EQ(out.children.size(), 1u);
  EXPECT_EQ(out.children[0].signal, SIGKILL);
  EXPECT_LT(out.wall_s, 5.0);
}

TEST(Supervisor, ExecFailureIsAFailure) {
  const JobOutcome out = run_job(
      job({ChildSpec{"rank 0", {"/nonexistent/gpumem-probe"}, environment_with({}, {})}}), 1s);
  EXPECT_EQ(out.state, JobState::kFailed);
  ASSERT_EQ(out.children.size(), 1u);
  EXPECT_EQ(out.children[0].exit_code, 127);
}

TEST(Supervisor, JobsRunSideBySide) {
  Supervisor sup(1s);
  ASSERT_TRUE(sup.start(JobSpec{"slow", {sh("a", "sleep 0.5")}, 10s}).ok());
  ASSERT_TRUE(sup.start(JobSpec{"fast", {sh("b", "exit 0")}, 10s}).ok());
  std::vector<std::string> order;
  while (sup.running_jobs() > 0) {
    for (const JobOutcome& o : sup.poll()) order.push_back(o.name);
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"fast", "slow"}));
}

TEST(Supervisor, ChildEnvironment) {
  const std::vector<std::pair<std::string, std::string>> set = {{"GPUMEM_TEST_RANK", "7"}};
  const std::vector<std::string> unset = {"HOME"};
  const std::vector<std::string> env = environment_with(set, unset);
  EXPECT_NE(std::find(env.begin(), env.end(), "GPUMEM_TEST_RANK=7"), env.end());
  EXPECT_TRUE(std::none_of(env.begin(), env.end(),
                           [](const std::string& e) { return e.rfind("HOME=", 0) == 0; }));
  const JobOutcome out = run_job(
      job({ChildSpec{"rank 0",
                     {"/bin/sh", "-c", "test \"$GPUMEM_TEST_RANK\" = 7 && test -z \"$HOME\""},
                     env}}),
      1s);
  EXPECT_EQ(out.state, JobState::kOk);
}

}  // namespace
}  // namespace gpumem::probe
