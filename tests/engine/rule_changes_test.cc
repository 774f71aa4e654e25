// Each engine's kRuleChanges (engine/*/version.h) lists every release at which a memory rule
// changes, so that explain replays a log with the rules of the release it ran: a release
// compared against anywhere in the engine's sources and missing from the list would be
// skipped over (a log of it replayed with the rules before it).
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "engine/sglang/version.h"
#include "engine/vllm/version.h"

namespace gpumem {
namespace {

// Every "Version{0, 5, 6}" or "Version{0, 4, 6, 3}" in the sources under `dir`, written as
// the engine writes its releases (`post` is ".postN" for SGLang, a fourth number for vLLM).
std::set<std::string> compared_releases(const std::string& dir, bool sglang) {
  static const RE2 kLiteral(R"(Version\{(\d+), (\d+), (\d+)(?:, (\d+))?\})");
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string body = text.str();
    re2::StringPiece input(body);
    std::string major, minor, patch, fourth;
    while (RE2::FindAndConsume(&input, kLiteral, &major, &minor, &patch, &fourth)) {
      std::string v = major + "." + minor + "." + patch;
      if (!fourth.empty() && fourth != "0") v += (sglang ? ".post" : ".") + fourth;
      out.insert(v);
    }
  }
  return out;
}

TEST(RuleChanges, EveryComparedReleaseIsListed) {
  const std::set<std::string> vllm_listed(std::begin(vllm::kRuleChanges),
                                          std::end(vllm::kRuleChanges));
  const std::set<std::string> vllm_compared =
      compared_releases(GPUMEM_SOURCE_DIR "/src/engine/vllm", false);
  EXPECT_TRUE(vllm_compared.contains("0.12.0"));  // vllm/plan.cc: Llama 4's chunked attention
  for (const std::string& v : vllm_compared) {
    if (v == vllm::kFirstUnmodelled.to_string()) continue;
    EXPECT_TRUE(vllm_listed.contains(v)) << "vLLM " << v;
  }
  const std::set<std::string> sglang_listed(std::begin(sglang::kRuleChanges),
                                            std::end(sglang::kRuleChanges));
  const std::set<std::string> sglang_compared =
      compared_releases(GPUMEM_SOURCE_DIR "/src/engine/sglang", true);
  EXPECT_TRUE(sglang_compared.contains("0.4.6.post3"));
  for (const std::string& v : sglang_compared) {
    EXPECT_TRUE(sglang_listed.contains(v)) << "SGLang " << v;
  }
  EXPECT_EQ(std::string(std::end(sglang::kRuleChanges)[-1]), sglang::kNewestModelled.to_string());
  EXPECT_EQ(std::string(vllm::kRuleChanges[0]), vllm::kOldestModelled.to_string());
}

}  // namespace
}  // namespace gpumem
