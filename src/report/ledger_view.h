// Grouping of a ledger's GPUs for reading: GPUs whose steps are identical are shown once
// ("GPUs 0-7"), so an 8-GPU TP ledger is one table, and a GPU that differs stands out.
#ifndef GPUMEM_REPORT_LEDGER_VIEW_H_
#define GPUMEM_REPORT_LEDGER_VIEW_H_

#include <string>
#include <vector>

#include "runtime/ledger.h"

namespace gpumem {

struct GpuGroup {
  std::vector<const GpuLedger*> members;  // in GPU order; members[0] is shown
  std::string label;                      // "GPU 3", "GPUs 0-7", "GPUs 0-2, 4"
};

// Groups `ledger.gpus` (optionally only `only_gpu`, a global rank) by identical steps.
std::vector<GpuGroup> group_identical_gpus(const Ledger& ledger, int only_gpu = -1);

// The category with the largest change of a step, e.g. "weights"; "" when nothing moved.
std::string main_category(const LedgerStep& step);

// One line on how the start-up ended: fits, or which step on which GPU ran out and by how
// much.
std::string verdict(const Ledger& ledger);

}  // namespace gpumem

#endif  // GPUMEM_REPORT_LEDGER_VIEW_H_
