#include "explain/log_header.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "core/spelling.h"
#include "engine/release_spelling.h"
#include "explain/gpu_choice.h"

namespace gpumem {
namespace {

constexpr std::string_view kPrefix = "# explain-args: ";
// Where the reason begins: the options end at three spaces and an opening parenthesis.
constexpr std::string_view kReason = "   (";

struct Token {
  std::string_view text;
  int column = 0;  // 1-based, in the file's line
};

std::vector<Token> split(std::string_view s, int first_column) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) {
      out.push_back({s.substr(start, i - start), first_column + static_cast<int>(start)});
    }
  }
  return out;
}

}  // namespace

Result<ExplainOverrides> overrides_from_header(std::string_view text, const std::string& file,
                                               const GpuCatalog& gpus) {
  ExplainOverrides o;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.starts_with(kPrefix)) continue;
    const std::string_view rest = line.substr(kPrefix.size());
    const std::string_view options = rest.substr(0, std::min(rest.find(kReason), rest.size()));
    const std::vector<Token> tokens = split(options, static_cast<int>(kPrefix.size()) + 1);
    const auto error = [&](const Token& t, const std::string& message) {
      return invalid_input(fmt::format("{}:{}:{}: {}", file, line_number, t.column, message));
    };
    for (size_t i = 0; i < tokens.size(); i += 2) {
      const Token& flag = tokens[i];
      static const std::vector<std::string> kKnown = {"--gpu", "--model", "--gpu-count",
                                                      "--engine-version"};
      if (std::find(kKnown.begin(), kKnown.end(), flag.text) == kKnown.end()) {
        return error(flag, fmt::format("explain-args: '{}' is not an option the header may give "
                                       "(--gpu, --model, --gpu-count, --engine-version){}",
                                       flag.text, did_you_mean(std::string(flag.text), kKnown)));
      }
      if (i + 1 >= tokens.size()) {
        return error(flag, fmt::format("explain-args: {} needs a value", flag.text));
      }
      const Token& value = tokens[i + 1];
      if (flag.text == "--gpu") {
        o.gpu = value.text;
        if (!gpu_from_option(gpus, o.gpu)) {
          return error(value, "explain-args: --gpu: " + unknown_gpu_option(gpus, o.gpu));
        }
      } else if (flag.text == "--model") {
        o.model = value.text;
      } else if (flag.text == "--engine-version") {
        if (std::string wrong = release_spelling_error(value.text); !wrong.empty()) {
          return error(value, "explain-args: --engine-version: " + wrong);
        }
        o.engine_version = value.text;
      } else {
        int count = 0;
        const auto [p, ec] =
            std::from_chars(value.text.data(), value.text.data() + value.text.size(), count);
        if (ec != std::errc() || p != value.text.data() + value.text.size() || count < 1) {
          return error(value, fmt::format("explain-args: --gpu-count takes a whole number of "
                                          "GPUs, not '{}'",
                                          value.text));
        }
        o.gpu_count = count;
      }
    }
  }
  return o;
}

}  // namespace gpumem
