#include "explain/python_literal.h"

#include <cctype>

namespace gpumem {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// A quoted string starting at p (on the quote); p ends after the closing quote. False when
// the text ends first.
bool read_string(std::string_view s, size_t& p, std::string& out) {
  const char quote = s[p++];
  while (p < s.size() && s[p] != quote) {
    if (s[p] == '\\' && p + 1 < s.size()) ++p;
    out += s[p++];
  }
  if (p >= s.size()) return false;
  ++p;
  return true;
}

// The end of a bracketed run starting at p (on the opening bracket), quotes respected; npos
// when it is not closed in `s`. Iterative: any depth is only counted.
size_t bracket_end(std::string_view s, size_t p) {
  long depth = 0;
  for (; p < s.size(); ++p) {
    const char c = s[p];
    if (c == '\'' || c == '"') {
      std::string ignored;
      if (!read_string(s, p, ignored)) return std::string_view::npos;
      --p;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return p + 1;
    }
  }
  return std::string_view::npos;
}

PyValue classify(std::string token) {
  PyValue v;
  v.text = std::move(token);
  const std::string& t = v.text;
  if (t == "True" || t == "False") {
    v.kind = PyValue::Kind::kBool;
  } else if (t == "None") {
    v.kind = PyValue::Kind::kNone;
  } else if (t == "inf" || t == "-inf" || t == "nan") {
    // repr(float('inf')), repr(float('nan')): numbers a reader must refuse, not names.
    v.kind = PyValue::Kind::kFloat;
  } else {
    size_t i = (!t.empty() && (t[0] == '-' || t[0] == '+')) ? 1 : 0;
    bool digits = i < t.size();
    bool dot = false;
    for (; i < t.size() && digits; ++i) {
      if (t[i] == '.' || t[i] == 'e' || t[i] == 'E') {
        dot = true;
      } else if (!std::isdigit(static_cast<unsigned char>(t[i])) &&
                 !(dot && (t[i] == '-' || t[i] == '+'))) {
        digits = false;
      }
    }
    if (digits) v.kind = dot ? PyValue::Kind::kFloat : PyValue::Kind::kInt;
  }
  return v;
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::string_view text() const { return s_; }
  std::optional<PyError>& error() { return error_; }

  // One value at p, lists nested `depth` deep around it; p ends after it. False when the
  // value is cut off, or refused (error() is then set).
  bool read_value(size_t& p, PyValue& out, int depth) {
    skip_spaces(p);
    if (p >= s_.size()) return false;
    const char c = s_[p];
    if (c == '\'' || c == '"') {
      out.kind = PyValue::Kind::kString;
      return read_string(s_, p, out.text);
    }
    if (c == '[' || c == '(' || c == '{') {
      const size_t end = bracket_end(s_, p);
      if (end == std::string_view::npos) return false;
      out.text = std::string(s_.substr(p, end - p));
      out.kind = c == '{' ? PyValue::Kind::kOther : PyValue::Kind::kList;
      if (c != '{') {
        if (depth >= kMaxPyDepth) {
          error_ = PyError{p, "a Python value nested deeper than " + std::to_string(kMaxPyDepth) +
                                  " lists or tuples; no engine prints one"};
          return false;
        }
        if (!read_items(p + 1, end - 1, out.items, depth + 1)) return false;
      }
      p = end;
      return true;
    }
    // A bare token (number, name, dotted name, call): up to a separator at depth 0.
    const size_t start = p;
    while (p < s_.size() && s_[p] != ',' && s_[p] != ')' && s_[p] != '}' && s_[p] != ']' &&
           !is_space(s_[p])) {
      if (s_[p] == '(' || s_[p] == '[' || s_[p] == '{') {
        const size_t end = bracket_end(s_, p);
        if (end == std::string_view::npos) return false;
        p = end;
      } else {
        ++p;
      }
    }
    if (p == start) return false;
    out = classify(std::string(s_.substr(start, p - start)));
    return true;
  }

  void skip_spaces(size_t& p) const {
    while (p < s_.size() && is_space(s_[p])) ++p;
  }

 private:
  // The items between `begin` and `end` (a list's inside). False only when refused.
  bool read_items(size_t begin, size_t end, std::vector<PyValue>& items, int depth) {
    Parser inner(s_.substr(0, end));
    size_t p = begin;
    while (true) {
      inner.skip_spaces(p);
      if (p >= end) break;
      PyValue v;
      if (!inner.read_value(p, v, depth)) {
        if (inner.error_) {
          error_ = std::move(inner.error_);
          return false;
        }
        break;
      }
      items.push_back(std::move(v));
      inner.skip_spaces(p);
      if (p < end && s_[p] == ',') ++p;
    }
    return true;
  }

  std::string_view s_;
  std::optional<PyError> error_;
};

}  // namespace

PyItems parse_keyword_items(std::string_view s) {
  PyItems out;
  Parser parser(s);
  size_t p = 0;
  while (p < s.size()) {
    if (!ident_char(s[p]) || (p > 0 && ident_char(s[p - 1]))) {
      ++p;
      continue;
    }
    size_t e = p;
    while (e < s.size() && ident_char(s[e])) ++e;
    if (e >= s.size() || s[e] != '=' || (e + 1 < s.size() && s[e + 1] == '=') ||
        std::isdigit(static_cast<unsigned char>(s[p]))) {
      p = e;
      continue;
    }
    PyItem item;
    item.key = std::string(s.substr(p, e - p));
    size_t v = e + 1;
    parser.skip_spaces(v);
    item.value_offset = v;
    if (!parser.read_value(v, item.value, 0)) break;
    out.items.push_back(std::move(item));
    p = v;
  }
  out.error = std::move(parser.error());
  return out;
}

PyItems parse_dict_items(std::string_view s) {
  PyItems out;
  const size_t open = s.find('{');
  if (open == std::string_view::npos) return out;
  Parser parser(s);
  size_t p = open + 1;
  while (true) {
    parser.skip_spaces(p);
    if (p >= s.size() || (s[p] != '\'' && s[p] != '"')) break;
    PyItem item;
    if (!read_string(s, p, item.key)) break;
    parser.skip_spaces(p);
    if (p >= s.size() || s[p] != ':') break;
    ++p;
    parser.skip_spaces(p);
    item.value_offset = p;
    if (!parser.read_value(p, item.value, 0)) break;
    out.items.push_back(std::move(item));
    parser.skip_spaces(p);
    if (p < s.size() && s[p] == ',') ++p;
  }
  out.error = std::move(parser.error());
  return out;
}

}  // namespace gpumem
