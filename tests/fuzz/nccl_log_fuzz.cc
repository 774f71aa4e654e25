// libFuzzer target: the reader of NCCL's debug log (probe/nccl_log.h), the log parser the
// probe runs after each measurement. It keeps at most `max_lines` lines, counts every
// allocation it sums, and never sums to a negative size.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/nccl_log.h"
#include "tests/fuzz/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumem;
  constexpr int kMaxLines = 4;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const probe::NcclLogSummary s = probe::summarize_nccl_log(text, kMaxLines);
  fuzz::require(s.kept_lines.size() <= static_cast<size_t>(kMaxLines) &&
                    s.kept_lines.size() <= static_cast<size_t>(s.total_lines),
                "at most max_lines lines are kept");
  for (const probe::NcclAllocTotal& a : s.allocations) {
    fuzz::require(a.count > 0 && a.requested.value() >= 0,
                  "an allocation kind is counted and its sum is a size", a.kind);
  }
  return 0;
}
