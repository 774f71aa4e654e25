// Test helpers for the launch-command reader: a command line split at spaces (as a shell
// splits one without quotes), read or refused, and its flags as "flag=value" strings.
#ifndef GPUMEM_TESTS_SUPPORT_LAUNCH_WORDS_H_
#define GPUMEM_TESTS_SUPPORT_LAUNCH_WORDS_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launch/launch_command.h"

namespace gpumem {

inline std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string w;
  for (char c : line) {
    if (c == ' ') {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

// "flag=value" per arg, values joined with ",", for compact expectations.
inline std::vector<std::string> args_of(const EngineLaunch& l) {
  std::vector<std::string> out;
  for (const EngineArg& a : l.args) {
    std::string v;
    for (const std::string& x : a.values) v += (v.empty() ? "" : ",") + x;
    out.push_back(a.flag + "=" + v);
  }
  return out;
}

inline EngineLaunch read(const std::vector<std::string>& argv) {
  Diagnostics diags;
  std::optional<EngineLaunch> l = read_launch_command(argv, diags);
  EXPECT_TRUE(l.has_value()) << diags.to_string();
  return l.value_or(EngineLaunch{});
}

inline std::string refusal(const std::vector<std::string>& argv) {
  Diagnostics diags;
  EXPECT_FALSE(read_launch_command(argv, diags).has_value());
  return diags.to_string();
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_LAUNCH_WORDS_H_
