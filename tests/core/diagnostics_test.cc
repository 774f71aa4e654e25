// Diagnostics keep the first hundred errors and count the rest: a file with a million unknown
// keys prints 101 lines, not a million.
#include "core/diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace gpumem {
namespace {

TEST(Diagnostics, AMillionErrorsPrintAHundredAndACount) {
  Diagnostics d;
  for (int i = 0; i < 1'000'000; ++i) d.error({"x.yaml", i + 1, 1}, "unknown key 'k'");
  EXPECT_EQ(d.count(), 1'000'000u);
  EXPECT_EQ(d.errors().size(), 100u);
  const std::string text = d.to_string();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 101);
  EXPECT_EQ(text.substr(0, 28), "x.yaml:1:1: unknown key 'k'\n");
  EXPECT_EQ(text.substr(text.size() - 27), "... and 999900 more errors\n");
}

TEST(Diagnostics, AppendingKeepsTheCountAndTheCap) {
  Diagnostics a;
  Diagnostics b;
  for (int i = 0; i < 60; ++i) a.error({}, "a");
  for (int i = 0; i < 60; ++i) b.error({}, "b");
  a.append(b);
  EXPECT_EQ(a.count(), 120u);
  EXPECT_EQ(a.errors().size(), 100u);
  EXPECT_EQ(a.errors().back().message, "b");
}

}  // namespace
}  // namespace gpumem
