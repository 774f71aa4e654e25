#include "explain/python_call.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "explain/logged_flags.h"
#include "explain/python_literal.h"

namespace gpumem {
namespace {

// Where the `LLM(` call's arguments start in `m`; npos when there is none.
size_t call_arguments(std::string_view m) {
  for (size_t at = m.find("LLM("); at != std::string_view::npos; at = m.find("LLM(", at + 1)) {
    const bool name_start = at == 0 || m[at - 1] == '.' || m[at - 1] == ' ' || m[at - 1] == '=' ||
                            m[at - 1] == '(' || m[at - 1] == '\t';
    if (name_start) return at + 4;
  }
  return std::string_view::npos;
}

// `text` with typographic quotes replaced by Python's, and for each byte kept its offset in
// `text`.
std::string straight_quotes(std::string_view text, std::vector<size_t>& origin) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    // U+201C/U+201D and U+2018/U+2019 in UTF-8: E2 80 9C/9D and E2 80 98/99.
    if (i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2 &&
        static_cast<unsigned char>(text[i + 1]) == 0x80) {
      const unsigned char c = static_cast<unsigned char>(text[i + 2]);
      if (c == 0x9C || c == 0x9D || c == 0x98 || c == 0x99) {
        out += c == 0x9C || c == 0x9D ? '"' : '\'';
        origin.push_back(i);
        i += 2;
        continue;
      }
    }
    out += text[i];
    origin.push_back(i);
  }
  return out;
}

// Python's digit separators: 30_000 is 30000 (a literal the dump reader, which never sees
// one, takes for a name).
PyValue without_separators(PyValue v) {
  if (v.kind != PyValue::Kind::kOther || v.text.find('_') == std::string::npos) return v;
  std::string digits = v.text;
  std::erase(digits, '_');
  const bool number = !digits.empty() && std::isdigit(static_cast<unsigned char>(digits[0])) &&
                      std::all_of(digits.begin(), digits.end(), [](char c) {
                        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
                      });
  if (!number) return v;
  v.kind = digits.find('.') == std::string::npos ? PyValue::Kind::kInt : PyValue::Kind::kFloat;
  v.text = digits;
  return v;
}

}  // namespace

bool opens_llm_call(std::string_view message) {
  return call_arguments(message) != std::string_view::npos;
}

std::optional<LaunchCommand> parse_llm_call(const LogLine& line) {
  const size_t start = call_arguments(line.message);
  if (start == std::string_view::npos) return std::nullopt;
  std::vector<size_t> origin;
  const std::string text = straight_quotes(std::string_view(line.message).substr(start), origin);
  LaunchCommand cmd;
  cmd.engine = LogEngine::kVllm;
  cmd.offline = true;
  const PyItems items = parse_keyword_items(text);
  bool literal = false;
  for (const PyItem& read : items.items) {
    PyItem item = read;
    item.value = without_separators(read.value);
    const LogPosition at = line.position(start + origin[item.value_offset]);
    const std::string where = "line " + std::to_string(at.line) + ": ";
    // A name or expression (args.model, int(os.environ["TP"])) the post does not resolve; a
    // dict literal (compilation_config={...}) is a value.
    if (item.value.kind == PyValue::Kind::kOther && !item.value.text.starts_with('{')) {
      cmd.notes.push_back(where + item.key + "=" + item.value.text +
                          " is a Python expression the log does not resolve; left out");
      continue;
    }
    literal = true;
    if (is_model_key(LogEngine::kVllm, item.key)) {
      if (item.value.kind == PyValue::Kind::kString) cmd.model = item.value.text;
      continue;
    }
    if (find_flag_spec(LogEngine::kVllm, flag_name_for_key(LogEngine::kVllm, item.key)) ==
        nullptr) {
      cmd.unknown_flags.push_back(item.key);
      continue;
    }
    // Nothing for None or a switch left False: the engine's default.
    std::optional<LoggedFlag> f =
        flag_from_python(LogEngine::kVllm, item.key, item.value, at.line, "LLM() call");
    if (!f) continue;
    f->column = at.column;
    cmd.flags.push_back(std::move(*f));
  }
  // A traceback's `llm = LLM(**kwargs)` states nothing.
  if (!literal) return std::nullopt;
  if (items.error) {
    cmd.notes.push_back("line " + std::to_string(line.position(start).line) +
                        ": the LLM() call is read up to " + items.error->message);
  }
  return cmd;
}

}  // namespace gpumem
