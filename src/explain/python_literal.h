// Python values as engines print them in their logs: repr() of strings, numbers, booleans,
// None, lists, tuples and dicts, inside `ServerArgs(tp_size=4, ...)`, vLLM's engine-config
// dump `model='x', dtype=torch.bfloat16, ...`, its `non-default args: {'k': v}` dict, and
// excerpts that keep only some `key=value` pairs between "..." elisions. Reading is
// tolerant: text that is not a key=value pair is skipped, a value cut off at the end of the
// line is dropped. One thing is refused: lists nested deeper than kMaxPyDepth (no engine
// prints one; read recursively, a line of a million '[' would overflow the stack).
#ifndef GPUMEM_EXPLAIN_PYTHON_LITERAL_H_
#define GPUMEM_EXPLAIN_PYTHON_LITERAL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpumem {

// The deepest nesting of lists and tuples read: SGLang's and vLLM's dumps nest three levels.
inline constexpr int kMaxPyDepth = 32;

struct PyValue {
  // kFloat includes Python's "inf" and "nan": a reader that takes a number refuses them.
  enum class Kind { kString, kInt, kFloat, kBool, kNone, kList, kOther };
  Kind kind = Kind::kOther;
  std::string text;            // the string's contents; the number or name as printed
  std::vector<PyValue> items;  // a list's or tuple's items
};

struct PyItem {
  std::string key;
  PyValue value;
  size_t value_offset = 0;  // where the value starts in the text read
};

// Why a text was refused, and where (an offset into the text read).
struct PyError {
  size_t offset = 0;
  std::string message;
};

struct PyItems {
  std::vector<PyItem> items;
  std::optional<PyError> error;  // set: `items` holds the pairs before the refused one
};

// Every `key=value` pair in `text`, in order (`==` is not a pair).
PyItems parse_keyword_items(std::string_view text);

// The items of the first `{...}` dict literal in `text`, keys being quoted strings.
PyItems parse_dict_items(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_PYTHON_LITERAL_H_
