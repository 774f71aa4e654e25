// What changed between two ledgers of the same scenario: whether it fits, the scenario-wide
// facts, and per GPU every step's change, free memory, peak and outcome (in step order, so
// the first entry of a GPU is where the change starts), then its facts. The
// CI gate (`gpumem diff`) fails on any entry; its table is meant to be read in seconds.
#ifndef GPUMEM_REPORT_LEDGER_DIFF_H_
#define GPUMEM_REPORT_LEDGER_DIFF_H_

#include <string>
#include <vector>

#include "runtime/ledger.h"

namespace gpumem {

struct LedgerChange {
  std::string gpus;   // "GPUs 0-7", "" for scenario-wide changes
  std::string where;  // step name, or "fact" / "result"
  std::string what;   // "change", "free after", a fact's key, ...
  std::string before;
  std::string after;
  std::string delta;  // for byte counts: "+2.00 MiB"; empty otherwise
};

std::vector<LedgerChange> diff_ledgers(const Ledger& before, const Ledger& after);

// A Markdown-style table of `changes` under a heading naming the scenario.
std::string render_diff(const std::string& scenario, const std::vector<LedgerChange>& changes);

}  // namespace gpumem

#endif  // GPUMEM_REPORT_LEDGER_DIFF_H_
