// Python values as engines print them in their logs: repr() of strings, numbers, booleans,
// None, lists, tuples and dicts, inside `ServerArgs(tp_size=4, ...)`, vLLM's engine-config
// dump `model='x', dtype=torch.bfloat16, ...`, its `non-default args: {'k': v}` dict, and
// excerpts that keep only some `key=value` pairs between "..." elisions. Reading is
// tolerant: text that is not a key=value pair is skipped, a value cut off at the end of the
// line is dropped.
#ifndef GPUMEM_EXPLAIN_PYTHON_LITERAL_H_
#define GPUMEM_EXPLAIN_PYTHON_LITERAL_H_

#include <string>
#include <string_view>
#include <vector>

namespace gpumem {

struct PyValue {
  enum class Kind { kString, kInt, kFloat, kBool, kNone, kList, kOther };
  Kind kind = Kind::kOther;
  std::string text;            // the string's contents; the number or name as printed
  std::vector<PyValue> items;  // a list's or tuple's items
};

struct PyItem {
  std::string key;
  PyValue value;
};

// Every `key=value` pair in `text`, in order (`==` is not a pair).
std::vector<PyItem> parse_keyword_items(std::string_view text);

// The items of the first `{...}` dict literal in `text`, keys being quoted strings.
std::vector<PyItem> parse_dict_items(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_PYTHON_LITERAL_H_
