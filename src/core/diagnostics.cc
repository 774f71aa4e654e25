#include "core/diagnostics.h"

#include <utility>

namespace gpumem {

std::string Diagnostic::to_string() const {
  if (loc.file.empty()) return message;  // the message carries its own location
  std::string out = loc.file;
  if (loc.line > 0) {
    out += ":" + std::to_string(loc.line);
    if (loc.column > 0) out += ":" + std::to_string(loc.column);
  }
  return out + ": " + message;
}

void Diagnostics::error(SourceLoc loc, std::string message) {
  errors_.push_back({std::move(loc), std::move(message)});
}

void Diagnostics::append(const Diagnostics& other) {
  errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
}

std::string Diagnostics::to_string() const {
  std::string out;
  for (const Diagnostic& d : errors_) out += d.to_string() + "\n";
  return out;
}

}  // namespace gpumem
