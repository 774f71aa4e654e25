// libFuzzer target: the size parser (core/size_parse.h) on arbitrary text. A size that parses
// is a whole, non-negative byte count; an error is a sentence that quotes the input or says
// what is missing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/size_parse.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Result<Bytes> parsed = parse_size(text);
  if (parsed.ok()) {
    fuzz::require(parsed->value() >= 0, "a parsed size is not negative", text);
  } else {
    fuzz::require(!parsed.status().message().empty(), "a size error says something", text);
  }
  return 0;
}
