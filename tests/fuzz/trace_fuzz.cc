// libFuzzer target: the probe trace reader (calib/trace.h) on arbitrary text. Every error
// names the file; a trace that reads has a step list that the checker can walk.
#include <cstddef>
#include <cstdint>
#include <string>

#include "calib/trace.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  static const std::string kFile = "fuzz/trace.rank0.json";
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Result<Trace> trace = parse_trace(kFile, text);
  if (!trace.ok()) {
    fuzz::require(trace.status().message().starts_with(kFile + ":"), "an error names the file",
                  trace.status().message());
    return 0;
  }
  for (const TraceStep& s : trace->steps) {
    fuzz::require(trace->step(s.name) != nullptr, "every step can be found by its name");
  }
  return 0;
}
