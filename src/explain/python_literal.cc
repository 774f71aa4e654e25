#include "explain/python_literal.h"

#include <cctype>

namespace gpumem {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void skip_spaces(std::string_view s, size_t& p) {
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
}

// A quoted string starting at p (on the quote); p ends after the closing quote. False when
// the line ends first.
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
// when it is not closed on this line.
size_t bracket_end(std::string_view s, size_t p) {
  int depth = 0;
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
  if (v.text == "True" || v.text == "False") {
    v.kind = PyValue::Kind::kBool;
  } else if (v.text == "None") {
    v.kind = PyValue::Kind::kNone;
  } else {
    const std::string& t = v.text;
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

std::vector<PyValue> split_items(std::string_view inner);

// One value at p; p ends after it. False when the value is cut off.
bool read_value(std::string_view s, size_t& p, PyValue& out) {
  skip_spaces(s, p);
  if (p >= s.size()) return false;
  const char c = s[p];
  if (c == '\'' || c == '"') {
    out.kind = PyValue::Kind::kString;
    return read_string(s, p, out.text);
  }
  if (c == '[' || c == '(' || c == '{') {
    const size_t end = bracket_end(s, p);
    if (end == std::string_view::npos) return false;
    out.text = std::string(s.substr(p, end - p));
    out.kind = c == '{' ? PyValue::Kind::kOther : PyValue::Kind::kList;
    if (c != '{') out.items = split_items(s.substr(p + 1, end - p - 2));
    p = end;
    return true;
  }
  // A bare token (number, name, dotted name, call): up to a separator at depth 0.
  const size_t start = p;
  while (p < s.size() && s[p] != ',' && s[p] != ')' && s[p] != '}' && s[p] != ']' &&
         !std::isspace(static_cast<unsigned char>(s[p]))) {
    if (s[p] == '(' || s[p] == '[' || s[p] == '{') {
      const size_t end = bracket_end(s, p);
      if (end == std::string_view::npos) return false;
      p = end;
    } else {
      ++p;
    }
  }
  if (p == start) return false;
  out = classify(std::string(s.substr(start, p - start)));
  return true;
}

std::vector<PyValue> split_items(std::string_view inner) {
  std::vector<PyValue> items;
  size_t p = 0;
  while (true) {
    skip_spaces(inner, p);
    if (p >= inner.size()) break;
    PyValue v;
    if (!read_value(inner, p, v)) break;
    items.push_back(std::move(v));
    skip_spaces(inner, p);
    if (p < inner.size() && inner[p] == ',') ++p;
  }
  return items;
}

}  // namespace

std::vector<PyItem> parse_keyword_items(std::string_view s) {
  std::vector<PyItem> items;
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
    if (!read_value(s, v, item.value)) break;
    items.push_back(std::move(item));
    p = v;
  }
  return items;
}

std::vector<PyItem> parse_dict_items(std::string_view s) {
  std::vector<PyItem> items;
  const size_t open = s.find('{');
  if (open == std::string_view::npos) return items;
  size_t p = open + 1;
  while (true) {
    skip_spaces(s, p);
    if (p >= s.size() || (s[p] != '\'' && s[p] != '"')) break;
    PyItem item;
    if (!read_string(s, p, item.key)) break;
    skip_spaces(s, p);
    if (p >= s.size() || s[p] != ':') break;
    ++p;
    if (!read_value(s, p, item.value)) break;
    items.push_back(std::move(item));
    skip_spaces(s, p);
    if (p < s.size() && s[p] == ',') ++p;
  }
  return items;
}

}  // namespace gpumem
