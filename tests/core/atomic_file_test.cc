#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

namespace gpumem {
namespace {

namespace fs = std::filesystem;

// A fresh directory of its own for one test.
fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpumem-atomic-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpumem-atomic-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string f = (dir / "ledger.json").string();
  ASSERT_TRUE(write_file_atomically(f, "{\"a\": 1}\n").ok());
  ASSERT_TRUE(write_file_atomically(f, "{}").ok());
  Result<std::string> text = read_file(f, InputKind::kLedger);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{}");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  std::filesystem::remove_all(dir);
}

// A streamed output (a sweep's rows): the old file stays whole while pieces are appended, the
// new one appears whole at commit, and one dropped uncommitted leaves nothing behind.
TEST(AtomicFile, AppendedOutputAppearsWholeAtCommit) {
  const fs::path dir = scratch("append");
  const std::string f = (dir / "rows.csv").string();
  ASSERT_TRUE(write_file_atomically(f, "old\n").ok());
  {
    Result<StagedFile> staged = StagedFile::open(f);
    ASSERT_TRUE(staged.ok()) << staged.status().message();
    ASSERT_TRUE(staged->append("a,b\n").ok());
    ASSERT_TRUE(staged->append("1,2\n").ok());
    EXPECT_EQ(read_file(f, InputKind::kLog).value(), "old\n");
    EXPECT_EQ(entries(dir).size(), 2u);  // the target and the temporary
    ASSERT_TRUE(staged->commit().ok());
  }
  EXPECT_EQ(read_file(f, InputKind::kLog).value(), "a,b\n1,2\n");
  {
    Result<StagedFile> dropped = StagedFile::open(f);
    ASSERT_TRUE(dropped.ok());
    ASSERT_TRUE(dropped->append("partial").ok());
  }
  EXPECT_EQ(entries(dir), std::vector<std::string>{"rows.csv"});
  EXPECT_EQ(read_file(f, InputKind::kLog).value(), "a,b\n1,2\n");
  fs::remove_all(dir);
}

TEST(AtomicFile, ErrorsNameThePathAndLeaveNothing) {
  const Status s = write_file_atomically("/nonexistent-dir/x.json", "{}");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), "/nonexistent-dir/x.json: cannot write: No such file or directory");
  Result<std::string> r = read_file("/nonexistent-dir/x.json", InputKind::kLedger);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "/nonexistent-dir/x.json: no such file");
}

TEST(AtomicFile, OnlyRegularFilesAreReplaced) {
  const fs::path dir = scratch("special");
  const fs::path target = dir / "real.json";
  ASSERT_TRUE(write_file_atomically(target.string(), "old").ok());
  fs::create_symlink(target, dir / "link.json");
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
  const Status link = write_file_atomically((dir / "link.json").string(), "new");
  EXPECT_EQ(link.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(link.message(), (dir / "link.json").string() +
                                ": is a symbolic link; gpumem replaces only regular files "
                                "(remove it or choose another name)");
  EXPECT_EQ(write_file_atomically((dir / "fifo.json").string(), "new").message(),
            (dir / "fifo.json").string() +
                ": is a FIFO; gpumem replaces only regular files (remove it or choose another "
                "name)");
  EXPECT_EQ(write_file_atomically("/dev/null", "new").message(),
            "/dev/null: is a device; gpumem replaces only regular files (remove it or choose "
            "another name)");
  EXPECT_EQ(*read_file(target.string(), InputKind::kLedger), "old");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"fifo.json", "link.json", "real.json"}));
  fs::remove_all(dir);
}

TEST(AtomicFile, SeveralOutputsAreWrittenAllOrNothing) {
  const fs::path dir = scratch("set");
  ASSERT_TRUE(write_file_atomically((dir / "a.yaml").string(), "old a").ok());
  const Status s = write_files_atomically(
      {{(dir / "a.yaml").string(), "new a"}, {(dir / "missing" / "b.md").string(), "new b"}});
  EXPECT_EQ(s.message(),
            (dir / "missing" / "b.md").string() + ": cannot write: No such file or directory");
  EXPECT_EQ(*read_file((dir / "a.yaml").string(), InputKind::kCatalog), "old a");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"a.yaml"});
  ASSERT_TRUE(write_files_atomically(
                  {{(dir / "a.yaml").string(), "new a"}, {(dir / "b.md").string(), "new b"}})
                  .ok());
  EXPECT_EQ(*read_file((dir / "a.yaml").string(), InputKind::kCatalog), "new a");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"a.yaml", "b.md"}));
  fs::remove_all(dir);
}

TEST(AtomicFile, ASignalDuringTheWriteLeavesNoTemporary) {
  const fs::path dir = scratch("signal");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // 1 GiB: long enough to be caught in the middle of it.
    (void)write_file_atomically((dir / "big.json").string(), std::string(size_t{1} << 30, 'x'));
    ::_exit(0);
  }
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      seen = seen || it->path().filename().string().rfind(".big.json.", 0) == 0;
    }
    if (!seen) ::usleep(500);
  }
  ASSERT_TRUE(seen) << "the temporary never appeared";
  ::kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(entries(dir), std::vector<std::string>{});
  fs::remove_all(dir);
}

TEST(AtomicFile, AnInputLargerThanItsKindsCapIsRefusedEvenWhenEndless) {
  EXPECT_EQ(read_file("/dev/zero", InputKind::kScenario).status().message(),
            "/dev/zero: is larger than the 1 MiB a scenario may have");
  const fs::path dir = scratch("cap");
  const fs::path big = dir / "big.yaml";
  ASSERT_TRUE(write_file_atomically(big.string(), std::string((4 << 20) + 1, '#')).ok());
  EXPECT_EQ(read_file(big.string(), InputKind::kCatalog).status().message(),
            big.string() + ": is larger than the 4 MiB a catalog entry may have");
  EXPECT_TRUE(read_file(big.string(), InputKind::kModelConfig).ok());
  fs::remove_all(dir);
}

TEST(AtomicFile, EachWayAnInputCannotBeOpenedHasItsOwnMessage) {
  const fs::path dir = scratch("open");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  EXPECT_EQ(
      read_file((dir / "loop-a").string(), InputKind::kScenario).status().message(),
      (dir / "loop-a").string() + ": a symbolic link loop (too many levels of symbolic links)");
  const std::string long_name = (dir / std::string(300, 'n')).string();
  EXPECT_EQ(read_file(long_name, InputKind::kScenario).status().message(),
            long_name + ": the path, or a name in it, is too long");
  ASSERT_TRUE(write_file_atomically((dir / "file").string(), "x").ok());
  EXPECT_EQ(read_file((dir / "file" / "x.yaml").string(), InputKind::kScenario).status().message(),
            (dir / "file" / "x.yaml").string() + ": a component of the path is not a directory");
  EXPECT_EQ(read_file(dir.string(), InputKind::kScenario).status().message(),
            dir.string() + ": is a directory, not a file");
  EXPECT_EQ(open_failure("s.yaml", EACCES),
            "s.yaml: permission denied (the file, or a directory on its path, is not readable)");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumem
