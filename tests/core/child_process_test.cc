// A child runs from an argument vector, never a shell: its arguments reach it as written, its
// input is what gpumem hands it, and a child that stops reading early does not kill gpumem.
#include "core/child_process.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumem {
namespace {

TEST(ChildProcess, ArgumentsReachTheChildAsWrittenWithoutAShell) {
  const Result<ChildResult> r =
      run_child({"printf", "%s|", "$(echo no)", "`echo no`", "a b;c", "'q'"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "$(echo no)|`echo no`|a b;c|'q'|");
}

TEST(ChildProcess, TheInputReachesTheChildsStandardInput) {
  std::string big(1 << 20, 'x');  // more than a pipe holds: written while the output is read
  big += "\nend\n";
  const Result<ChildResult> r = run_child({"tail", "-c", "5"}, big);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "\nend\n");
}

TEST(ChildProcess, AChildThatStopsReadingEarlyIsNotAnError) {
  const Result<ChildResult> r = run_child({"head", "-c", "3"}, std::string(4 << 20, 'y'));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, "yyy");
}

TEST(ChildProcess, AMissingProgramIsNotFoundAndAFailureKeepsItsExitCodeAndError) {
  const Result<ChildResult> missing = run_child({"gpumem-no-such-program"});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "gpumem-no-such-program: not found on PATH");
  const Result<ChildResult> failed = run_child({"ls", "/gpumem-no-such-directory"});
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->exit_code, 2);
  EXPECT_NE(failed->err.find("No such file or directory"), std::string::npos);
}

}  // namespace
}  // namespace gpumem
