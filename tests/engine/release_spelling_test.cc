#include "engine/release_spelling.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumem {
namespace {

TEST(ReleaseSpelling, TakesTheVersionsTheEnginesPrint) {
  for (const char* release : {"0.5.9", "v0.4.6.post1", "0.11.0rc1", "0.20.1.dev1+g1a2b3c4",
                              "0.19.1rc1.dev45+gabc.d20260101", "0.10.1.1", "1.0"}) {
    EXPECT_EQ(release_spelling_error(release), "") << release;
  }
}

TEST(ReleaseSpelling, RefusesWhatNoEnginePrintsWithItsControlCharactersEscaped) {
  EXPECT_EQ(release_spelling_error("0.5\nfoo: 1"),
            "\"0.5\\nfoo: 1\" is not a release number (as 0.5.9, 0.4.6.post1, 0.11.0rc1 or "
            "0.20.1.dev1+g1a2b3c4)");
  for (const char* text : {"", "zz9", "0.4.5x", "5", "0.5.9 ", "0.5.9;rm", "latest", "0..1",
                           "0.5.9+", "v", "0.5.9.post"}) {
    EXPECT_NE(release_spelling_error(text), "") << text;
  }
  // Longer than any release published, even with a git hash: refused, and quoted cut short.
  const std::string long_release = "0.5.9+" + std::string(60, 'a');
  EXPECT_EQ(release_spelling_error(long_release),
            "\"0.5.9+" + std::string(42, 'a') +
                "\" is not a release number (as 0.5.9, 0.4.6.post1, 0.11.0rc1 or "
                "0.20.1.dev1+g1a2b3c4)");
}

}  // namespace
}  // namespace gpumem
