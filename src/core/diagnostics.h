// Messages about a user's input, each pinned to a place in a file.
//
// Every error about input is printed as `file:line:col: message` (1-based line and column),
// the form compilers use, so editors can jump to it. Validation collects all errors of a
// file into a `Diagnostics` before anything is simulated; a command that finds any exits
// with kExitBadInput and writes no output file.
#ifndef GPUMEM_CORE_DIAGNOSTICS_H_
#define GPUMEM_CORE_DIAGNOSTICS_H_

#include <string>
#include <vector>

namespace gpumem {

struct SourceLoc {
  std::string file;  // empty: the message already starts with its location
  int line = 0;      // 1-based; 0 when the whole file is meant
  int column = 0;    // 1-based; 0 when unknown
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;

  // "scenarios/x.yaml:12:5: unknown key 'gpus'; did you mean 'gpu'?"
  std::string to_string() const;
};

// At most kMaxKept errors are kept (a file with a million unknown keys must not print, or
// hold, a million lines); the rest are only counted.
class Diagnostics {
 public:
  static constexpr size_t kMaxKept = 100;

  void error(SourceLoc loc, std::string message);
  void append(const Diagnostics& other);

  bool empty() const { return count_ == 0; }
  size_t count() const { return count_; }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  // The kept errors, one per line, in the order they were found, then "... and N more
  // errors" when some were only counted.
  std::string to_string() const;

 private:
  std::vector<Diagnostic> errors_;
  size_t count_ = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_CORE_DIAGNOSTICS_H_
