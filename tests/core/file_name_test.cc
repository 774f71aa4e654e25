// Names that become file names stay inside their directory: only the documented safe set
// passes, and the refusal says which character and where.
#include "core/file_name.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumem {
namespace {

std::string refusal(std::string_view name) {
  return check_file_name(name, "the scenario's name").message();
}

TEST(FileName, TheSafeSetPasses) {
  EXPECT_TRUE(check_file_name("h200x2-llama-3.1-8b_tp2+eagle3", "n").ok());
  EXPECT_TRUE(check_file_name(std::string(128, 'a'), "n").ok());
}

TEST(FileName, EveryWayOutOfTheDirectoryIsRefusedWithWhereAndWhy) {
  constexpr const char* kSet =
      "; it must be letters, digits, '.', '_', '+' and '-', starting with a letter or a digit";
  EXPECT_EQ(refusal("../x"), std::string("the scenario's name '../x' cannot become a file name: "
                                         "'.' at position 1") +
                                 kSet);
  EXPECT_EQ(refusal("/abs/x"), std::string("the scenario's name '/abs/x' cannot become a file "
                                           "name: '/' at position 1") +
                                   kSet);
  EXPECT_EQ(refusal("a/../../b"), std::string("the scenario's name 'a/../../b' cannot become a "
                                              "file name: '/' at position 2") +
                                      kSet);
  EXPECT_EQ(refusal(".hidden"), std::string("the scenario's name '.hidden' cannot become a file "
                                            "name: '.' at position 1") +
                                    kSet);
  EXPECT_EQ(refusal("-rf"), std::string("the scenario's name '-rf' cannot become a file name: "
                                        "'-' at position 1") +
                                kSet);
  EXPECT_EQ(refusal("a b"), std::string("the scenario's name 'a b' cannot become a file name: "
                                        "a space at position 2") +
                                kSet);
  EXPECT_EQ(refusal(std::string("a\nb", 3)),
            std::string("the scenario's name 'a\\x0ab' cannot become a file name: \\x0a at "
                        "position 2") +
                kSet);
  EXPECT_EQ(refusal(std::string("a\0b", 3)),
            std::string("the scenario's name 'a\\x00b' cannot become a file name: \\x00 at "
                        "position 2") +
                kSet);
  EXPECT_EQ(refusal(""), std::string("the scenario's name is empty") +
                             "; it must be letters, digits, '.', '_', '+' and '-', starting with "
                             "a letter or a digit");
  EXPECT_EQ(refusal(std::string(129, 'a')),
            "the scenario's name has 129 characters; at most 128 become a file name");
}

TEST(FileName, APathIsJoinedInsideItsDirectory) {
  EXPECT_EQ(*file_in_directory("reports/scenarios", "seed", ".json", "n"),
            "reports/scenarios/seed.json");
  EXPECT_EQ(*file_in_directory("reports/scenarios/", "seed", ".md", "n"),
            "reports/scenarios/seed.md");
  EXPECT_EQ(*file_in_directory(".", "seed", ".md", "n"), "seed.md");
  EXPECT_EQ(*file_in_directory("", "seed", ".md", "n"), "seed.md");
  const Result<std::string> out = file_in_directory("out", "../x", ".json", "the scenario's name");
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace gpumem
