#include "core/diagnostics.h"

#include <fmt/format.h>

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
  ++count_;
  if (errors_.size() < kMaxKept) errors_.push_back({std::move(loc), std::move(message)});
}

void Diagnostics::append(const Diagnostics& other) {
  for (const Diagnostic& d : other.errors_) {
    if (errors_.size() < kMaxKept) errors_.push_back(d);
  }
  count_ += other.count_;
}

std::string Diagnostics::to_string() const {
  std::string out;
  for (const Diagnostic& d : errors_) out += d.to_string() + "\n";
  if (count_ > errors_.size())
    out += fmt::format("... and {} more errors\n", count_ - errors_.size());
  return out;
}

}  // namespace gpumem
