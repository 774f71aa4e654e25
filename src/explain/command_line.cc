#include "explain/command_line.h"

#include <algorithm>
#include <cctype>

#include "engine/sglang/flags.h"
#include "engine/vllm/flags.h"
#include "explain/logged_flags.h"
#include "explain/shell_value.h"
#include "launch/container_run.h"

namespace gpumem {
namespace {

// A word of a command line and where it starts in the line.
struct Word {
  std::string text;
  size_t begin = 0;
};

std::vector<Word> shell_words(std::string_view s) {
  std::vector<Word> words;
  std::string word;
  bool in_word = false;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!in_word) begin = i;
    if (c == '\'') {
      const size_t close = s.find(c, i + 1);
      const size_t end = close == std::string_view::npos ? s.size() : close;
      word += s.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      // Inside double quotes a backslash escapes only $ ` " \ (POSIX 2.2.3): "{\"image\":1}"
      // is {"image":1}.
      size_t j = i + 1;
      for (; j < s.size() && s[j] != '"'; ++j) {
        if (s[j] == '\\' && j + 1 < s.size() &&
            std::string_view("$`\"\\").find(s[j + 1]) != std::string_view::npos) {
          ++j;
        }
        word += s[j];
      }
      in_word = true;
      i = j;
    } else if (c == '\\' && i + 1 < s.size() &&
               !std::isspace(static_cast<unsigned char>(s[i + 1]))) {
      word += s[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c)) || c == '\\') {
      if (in_word) words.push_back({word, begin});
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back({word, begin});
  return words;
}

bool is_number(const std::string& w) {
  if (w.empty()) return false;
  size_t i = w[0] == '-' ? 1 : 0;
  if (i >= w.size()) return false;
  for (; i < w.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(w[i])) && w[i] != '.') return false;
  }
  return true;
}

bool is_flag(const std::string& w) { return w.size() > 1 && w[0] == '-' && !is_number(w); }

// "<model>", "<local snapshot of Qwen/Qwen3-14B>": what a post writes in place of a value it
// does not show (a shell would read '<' as a redirection).
bool is_placeholder(const std::string& w) { return w.size() > 1 && w.front() == '<'; }

// Where the engine's arguments start: after "vllm serve", "-m vllm.entrypoints...",
// "-m sglang.launch_server", "sglang serve"; npos when the words start no server.
size_t arguments_start(const std::vector<std::string>& w, LogEngine& engine) {
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string& t = w[i];
    const bool vllm_bin = t == "vllm" || (t.size() > 5 && t.substr(t.size() - 5) == "/vllm");
    if (vllm_bin && i + 1 < w.size() && w[i + 1] == "serve") {
      engine = LogEngine::kVllm;
      return i + 2;
    }
    // vLLM's image runs the OpenAI server with the arguments after the image's name.
    if (t.rfind("vllm/vllm-openai", 0) == 0) {
      engine = LogEngine::kVllm;
      return i + 1;
    }
    if (t.rfind("vllm.entrypoints", 0) == 0) {
      engine = LogEngine::kVllm;
      return i + 1;
    }
    if (t == "sglang.launch_server" || t.rfind("sglang.launch_server", 0) == 0) {
      engine = LogEngine::kSglang;
      return i + 1;
    }
    // The `sglang serve` entry point (sglang/cli, as engine/sglang/engine.cc reads it).
    const bool sglang_bin = t == "sglang" || (t.size() > 7 && t.ends_with("/sglang"));
    if (sglang_bin && i + 1 < w.size() && w[i + 1] == "serve") {
      engine = LogEngine::kSglang;
      return i + 2;
    }
  }
  return std::string::npos;
}

// Python's argparse (allow_abbrev) takes a unique prefix of a long flag: SGLang's "--tp 8"
// is --tp-size. Unique among the flags gpumem's table knows.
const FlagSpec* abbreviated_flag(LogEngine engine, std::string name) {
  if (name.size() < 4 || name.substr(0, 2) != "--") return nullptr;
  // vllm v0.10.2 utils/__init__.py FlexibleArgumentParser.parse_args: underscores are dashes.
  if (engine == LogEngine::kVllm) std::replace(name.begin(), name.end(), '_', '-');
  const std::span<const FlagSpec> table =
      engine == LogEngine::kSglang ? sglang::flag_table() : vllm::flag_table();
  const FlagSpec* found = nullptr;
  for (const FlagSpec& f : table) {
    if (f.name.substr(0, name.size()) != name) continue;
    if (found != nullptr && found != &f) return nullptr;
    found = &f;
  }
  return found;
}

}  // namespace

// `value` of `spec` as the engine receives it; nothing (and a note) when the log does not
// show it.
std::optional<std::string> received_value(LogEngine engine, const FlagSpec& spec,
                                          const std::string& value, const LogPosition& at,
                                          std::vector<std::string>& notes) {
  const std::string where = "line " + std::to_string(at.line) + ": " + std::string(spec.name) + " ";
  if (value.starts_with("$((")) {
    if (const std::optional<std::int64_t> v = shell_arithmetic(value)) return std::to_string(*v);
    notes.push_back(where + value + " is shell arithmetic gpumem cannot evaluate; left out");
    return std::nullopt;
  }
  if (names_shell_variable(value)) {
    notes.push_back(where + value + " names a shell variable the log does not show; left out");
    return std::nullopt;
  }
  if (engine == LogEngine::kVllm &&
      (spec.name == "--max-model-len" || spec.name == "--max-num-batched-tokens")) {
    if (const std::optional<std::int64_t> v = human_readable_int(value)) return std::to_string(*v);
  }
  return value;
}

std::optional<LaunchCommand> parse_launch_command(const LogLine& l) {
  const std::vector<Word> words = shell_words(l.message);
  std::vector<std::string> w;
  for (const Word& word : words) w.push_back(word.text);
  LaunchCommand cmd;
  size_t i = arguments_start(w, cmd.engine);
  if (i == std::string::npos) return std::nullopt;
  // The engine's own image, run before the server's words: its tag may name the release.
  const std::string_view engine_image =
      cmd.engine == LogEngine::kVllm ? "vllm/vllm-openai" : "lmsysorg/sglang";
  for (size_t k = 0; k < i; ++k) {
    if (image_repository(w[k]) != engine_image) continue;
    if (const std::optional<ImageRelease> r = image_release(w[k])) cmd.image_release = r->version;
  }
  // vllm v0.10.2 entrypoints/cli/serve.py: the model is the first positional argument.
  if (cmd.engine == LogEngine::kVllm && i < w.size() && !is_flag(w[i]) && w[i - 1] == "serve") {
    cmd.model = w[i++];
  }
  if (cmd.model && (names_shell_variable(*cmd.model) || is_placeholder(*cmd.model))) {
    cmd.notes.push_back("line " + std::to_string(l.number) + ": the model " + *cmd.model +
                        " is a placeholder or shell variable the log does not resolve");
    cmd.model.reset();
  }
  while (i < w.size()) {
    if (!is_flag(w[i])) {
      ++i;
      continue;
    }
    size_t value_begin = i + 1 < w.size() ? words[i + 1].begin : words[i].begin;
    std::string name = w[i++];
    std::vector<std::string> values;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      values.push_back(name.substr(eq + 1));
      name = name.substr(0, eq);
      value_begin = words[i - 1].begin + eq + 1;
    }
    const FlagSpec* spec = find_flag_spec(cmd.engine, name);
    if (spec == nullptr) spec = abbreviated_flag(cmd.engine, name);
    if (values.empty()) {
      if (spec != nullptr && spec->type == FlagType::kBool) {
        values.push_back("true");
      } else if (spec != nullptr && spec->type == FlagType::kIntList) {
        while (i < w.size() && is_number(w[i])) values.push_back(w[i++]);
      } else if (spec != nullptr && spec->type == FlagType::kList) {
        while (i < w.size() && !is_flag(w[i])) values.push_back(w[i++]);
      } else if (i < w.size() && !is_flag(w[i])) {
        values.push_back(w[i++]);
      }
    }
    const std::string model_flag = cmd.engine == LogEngine::kVllm ? "--model" : "--model-path";
    if (spec != nullptr && spec->name == model_flag && !values.empty()) {
      if (names_shell_variable(values.front()) || is_placeholder(values.front())) {
        cmd.notes.push_back("line " + std::to_string(l.number) + ": the model " + values.front() +
                            " is a placeholder or shell variable the log does not resolve");
      } else {
        cmd.model = values.front();
      }
      continue;
    }
    const LogPosition at = l.position(value_begin);
    if (spec != nullptr && spec->affects_memory) {
      std::vector<std::string> received;
      for (const std::string& v : values) {
        if (std::optional<std::string> r = received_value(cmd.engine, *spec, v, at, cmd.notes)) {
          received.push_back(*r);
        }
      }
      if (received.size() != values.size()) continue;
      values = received;
    }
    if (spec == nullptr || values.empty()) {
      cmd.unknown_flags.push_back(name);
      continue;
    }
    LoggedFlag f;
    f.flag = std::string(spec->name);
    f.values = values;
    f.is_list = spec->type == FlagType::kIntList || spec->type == FlagType::kList;
    f.line = at.line;
    f.column = at.column;
    f.source = "launch command";
    cmd.flags.push_back(std::move(f));
  }
  return cmd;
}

}  // namespace gpumem
