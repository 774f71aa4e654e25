#include "probe/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpumem::probe {
namespace {

TEST(AtomicFile, WritesReplacesAndLeavesNoTemporary) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpumem-atomic-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path f = dir / "trace.json";
  ASSERT_TRUE(write_file_atomically(f, "{\"a\": 1}\n").ok());
  ASSERT_TRUE(write_file_atomically(f, "{}").ok());
  auto text = read_file(f);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{}");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, ErrorsNameThePath) {
  const Status s = write_file_atomically("/nonexistent-dir/x.json", "{}");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message().rfind("cannot create /nonexistent-dir/x.json.tmp.", 0), 0u) << s.message();
  auto r = read_file("/nonexistent-dir/x.json");
  EXPECT_EQ(r.status().message(), "cannot open /nonexistent-dir/x.json");
}

TEST(AtomicFile, JsonWithInvalidUtf8IsStillWritten) {
  const std::filesystem::path f =
      std::filesystem::temp_directory_path() / ("gpumem-json-" + std::to_string(::getpid()));
  const nlohmann::json value = {{"line", std::string("NCCL INFO \xff\xfe end")},
                                {"bytes", 2097152}};
  ASSERT_TRUE(write_json_atomically(f, value).ok());
  auto text = read_file(f);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "{\n \"bytes\": 2097152,\n \"line\": \"NCCL INFO \xef\xbf\xbd\xef\xbf\xbd end\"\n}\n");
  std::filesystem::remove(f);
}

}  // namespace
}  // namespace gpumem::probe
