#include "explain/logged_flags.h"

#include <algorithm>
#include <utility>

#include "engine/sglang/flags.h"
#include "engine/vllm/flags.h"

namespace gpumem {
namespace {

std::string dashes(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// Dump keys whose flag has another name: vllm v0.10.2 config/__init__.py VllmConfig.__str__ prints
// the resolved max_model_len as max_seq_len in the engine-config line.
}  // namespace

std::string flag_name_for_key(LogEngine engine, std::string_view key) {
  if (engine == LogEngine::kVllm && key == "max_seq_len") return "--max-model-len";
  return "--" + dashes(key);
}

const FlagSpec* find_flag_spec(LogEngine engine, std::string_view flag) {
  const std::span<const FlagSpec> table =
      engine == LogEngine::kSglang ? sglang::flag_table() : vllm::flag_table();
  const std::string name = engine == LogEngine::kVllm && flag.substr(0, 2) == "--"
                               ? "--" + dashes(flag.substr(2))
                               : std::string(flag);
  for (const FlagSpec& f : table) {
    if (f.name == name) return &f;
    for (std::string_view a : f.aliases) {
      if (a == name) return &f;
    }
  }
  return nullptr;
}

bool is_model_key(LogEngine engine, std::string_view key) {
  if (engine == LogEngine::kSglang) return key == "model_path";
  return key == "model";
}

std::optional<LoggedFlag> flag_from_python(LogEngine engine, std::string_view key,
                                           const PyValue& value, int line,
                                           const std::string& source) {
  const FlagSpec* spec = find_flag_spec(engine, flag_name_for_key(engine, key));
  if (spec == nullptr || value.kind == PyValue::Kind::kNone) return std::nullopt;
  LoggedFlag f;
  f.flag = std::string(spec->name);
  f.line = line;
  f.source = source;
  // A value of another kind than the flag's type is kept as printed: the scenario's reader
  // refuses it at replay, at this line, rather than it being dropped unseen.
  const auto text_of = [](const PyValue& v) {
    // vLLM's config dump prints dtypes as torch objects ("torch.bfloat16").
    return v.text.rfind("torch.", 0) == 0 ? v.text.substr(6) : v.text;
  };
  switch (spec->type) {
    case FlagType::kBool:
      if (value.kind == PyValue::Kind::kBool && value.text == "False") return std::nullopt;
      f.values = {value.kind == PyValue::Kind::kBool ? "true" : value.text};
      break;
    case FlagType::kIntList:
    case FlagType::kList:
    case FlagType::kInt:
    case FlagType::kByteCount:
    case FlagType::kFloat:
    case FlagType::kString:
      // A list stays a list (vLLM prints served_model_name as one); a scalar of a list flag
      // is a list of one.
      f.is_list = spec->type == FlagType::kIntList || spec->type == FlagType::kList ||
                  value.kind == PyValue::Kind::kList;
      if (value.kind == PyValue::Kind::kList) {
        for (const PyValue& item : value.items) f.values.push_back(text_of(item));
      } else {
        f.values = {text_of(value)};
      }
      break;
  }
  return f;
}

}  // namespace gpumem
