#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace gpumem {
namespace {

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpumem-atomic-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string f = (dir / "ledger.json").string();
  ASSERT_TRUE(write_file_atomically(f, "{\"a\": 1}\n").ok());
  ASSERT_TRUE(write_file_atomically(f, "{}").ok());
  Result<std::string> text = read_file(f);
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

TEST(AtomicFile, ErrorsNameThePathAndLeaveNothing) {
  const Status s = write_file_atomically("/nonexistent-dir/x.json", "{}");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), "/nonexistent-dir/x.json: cannot write: No such file or directory");
  Result<std::string> r = read_file("/nonexistent-dir/x.json");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "/nonexistent-dir/x.json: no such file");
}

}  // namespace
}  // namespace gpumem
