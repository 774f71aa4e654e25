#include "probe/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpumem::probe {
namespace {

TEST(AtomicFile, JsonWithInvalidUtf8IsStillWritten) {
  const std::filesystem::path f =
      std::filesystem::temp_directory_path() / ("gpumem-json-" + std::to_string(::getpid()));
  const nlohmann::json value = {{"line", std::string("NCCL INFO \xff\xfe end")},
                                {"bytes", 2097152}};
  ASSERT_TRUE(write_json_atomically(f, value).ok());
  auto text = read_file(f.string(), InputKind::kTrace);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "{\n \"bytes\": 2097152,\n \"line\": \"NCCL INFO \xef\xbf\xbd\xef\xbf\xbd end\"\n}\n");
  std::filesystem::remove(f);
}

}  // namespace
}  // namespace gpumem::probe
