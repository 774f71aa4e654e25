#include "core/json_location.h"

#include <vector>

namespace gpumem {
namespace {

// One open container while scanning: its kind and the path element of the value being read.
struct Frame {
  bool object = false;
  size_t index = 0;    // arrays: the index of the next element
  std::string key;     // objects: the key of the value being read
  bool expect_key = false;
};

// JSON pointer escaping of one path element (RFC 6901: ~ as ~0, / as ~1).
std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string pointer_of(const std::vector<Frame>& stack) {
  std::string p;
  for (const Frame& f : stack) p += "/" + (f.object ? escaped(f.key) : std::to_string(f.index));
  return p;
}

// Reads the string starting at text[pos] == '"'; returns the position after it and its text
// (escapes other than \" and \\ are kept as written: keys gpumem uses have none).
size_t read_string(std::string_view text, size_t pos, std::string* out) {
  for (++pos; pos < text.size() && text[pos] != '"'; ++pos) {
    if (text[pos] == '\\' && pos + 1 < text.size()) {
      ++pos;
      if (out != nullptr) *out += text[pos] == '"' || text[pos] == '\\' ? text[pos] : '?';
      continue;
    }
    if (out != nullptr) *out += text[pos];
  }
  return pos + 1;
}

}  // namespace

SourceLoc location_of_offset(const std::string& file, std::string_view text, size_t offset) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {file, line, static_cast<int>(std::min(offset, text.size()) - line_start) + 1};
}

SourceLoc location_of_pointer(const std::string& file, std::string_view text,
                              std::string_view pointer) {
  std::vector<Frame> stack;
  size_t pos = 0;
  auto skip_space = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' ||
                                 text[pos] == '\t')) {
      ++pos;
    }
  };
  // After a value ends: move the enclosing container on to its next element.
  auto value_done = [&] {
    if (!stack.empty()) {
      if (stack.back().object) {
        stack.back().expect_key = true;
      } else {
        ++stack.back().index;
      }
    }
  };
  while (true) {
    skip_space();
    if (pos >= text.size()) return {file, 0, 0};
    const char c = text[pos];
    if (!stack.empty() && stack.back().object && stack.back().expect_key) {
      if (c == '}') {
        stack.pop_back();
        ++pos;
        value_done();
        continue;
      }
      if (c == ',') {
        ++pos;
        continue;
      }
      stack.back().key.clear();
      pos = read_string(text, pos, &stack.back().key);
      skip_space();
      ++pos;  // the ':'
      stack.back().expect_key = false;
      continue;
    }
    if (c == ',') {
      ++pos;
      continue;
    }
    if (c == ']') {
      stack.pop_back();
      ++pos;
      value_done();
      continue;
    }
    // A value starts here.
    if (pointer_of(stack) == pointer) return location_of_offset(file, text, pos);
    if (c == '{' || c == '[') {
      stack.push_back({c == '{', 0, {}, c == '{'});
      ++pos;
      continue;
    }
    if (c == '"') {
      pos = read_string(text, pos, nullptr);
    } else {
      while (pos < text.size() && text[pos] != ',' && text[pos] != '}' && text[pos] != ']' &&
             text[pos] != ' ' && text[pos] != '\n' && text[pos] != '\r' && text[pos] != '\t') {
        ++pos;
      }
    }
    value_done();
  }
}

std::string json_error(const std::string& file, std::string_view text, std::string_view what,
                       const nlohmann::json::exception& e) {
  std::string message = e.what();
  // "[json.exception.type_error.302] (/steps/0/wall_s) type must be number, but is string"
  if (const size_t tag = message.find("] "); message.rfind("[json.exception.", 0) == 0 &&
                                            tag != std::string::npos) {
    message.erase(0, tag + 2);
  }
  SourceLoc loc{file, 0, 0};
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    // nlohmann counts the byte at which parsing failed from 1.
    loc = location_of_offset(file, text, parse->byte > 0 ? parse->byte - 1 : 0);
    // "parse error at line 3, column 5: syntax error ..." says the place the location says.
    if (const size_t colon = message.find(": "); message.rfind("parse error at line", 0) == 0 &&
                                                 colon != std::string::npos) {
      message = "parse error: " + message.substr(colon + 2);
    }
  } else if (message.rfind("(", 0) == 0) {
    const size_t close = message.find(") ");
    if (close != std::string::npos) {
      loc = location_of_pointer(file, text, std::string_view(message).substr(1, close - 1));
      message.erase(0, close + 2);
    }
  }
  return Diagnostic{loc, std::string(what) + ": " + message}.to_string();
}

}  // namespace gpumem
