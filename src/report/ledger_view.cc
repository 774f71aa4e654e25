#include "report/ledger_view.h"

#include <cstdlib>

namespace gpumem {
namespace {

bool same_steps(const GpuLedger& a, const GpuLedger& b) {
  if (a.steps.size() != b.steps.size() || a.total != b.total || a.used_before != b.used_before ||
      a.facts != b.facts) {
    return false;
  }
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const LedgerStep& x = a.steps[i];
    const LedgerStep& y = b.steps[i];
    if (x.name != y.name || x.outcome != y.outcome || x.used_after != y.used_after ||
        x.peak_used != y.peak_used || x.delta_by_category != y.delta_by_category ||
        x.allocated_after != y.allocated_after || x.reserved_after != y.reserved_after) {
      return false;
    }
  }
  return true;
}

// "0-3, 5, 7-8"
std::string ranges(const std::vector<int>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::vector<GpuGroup> group_identical_gpus(const Ledger& ledger, int only_gpu) {
  std::vector<GpuGroup> groups;
  for (const GpuLedger& g : ledger.gpus) {
    if (only_gpu >= 0 && g.rank != only_gpu) continue;
    bool placed = false;
    for (GpuGroup& group : groups) {
      if (same_steps(*group.members.front(), g)) {
        group.members.push_back(&g);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({{&g}, ""});
  }
  for (GpuGroup& group : groups) {
    std::vector<int> ids;
    for (const GpuLedger* g : group.members) ids.push_back(g->rank);
    group.label = (ids.size() == 1 ? "GPU " : "GPUs ") + ranges(ids);
  }
  return groups;
}

std::string main_category(const LedgerStep& step) {
  size_t best = kCategoryCount;
  for (size_t c = 0; c < kCategoryCount; ++c) {
    if (step.delta_by_category[c].value() == 0) continue;
    if (best == kCategoryCount || std::llabs(step.delta_by_category[c].value()) >
                                      std::llabs(step.delta_by_category[best].value())) {
      best = c;
    }
  }
  return best == kCategoryCount ? "" : std::string(kCategoryNames[best]);
}

std::string verdict(const Ledger& ledger) {
  const GpuLedger* failed = ledger.first_failure();
  if (failed == nullptr) {
    if (ledger.fits()) return "fits: every GPU completes its start-up";
    return "does not fit: the start-up was aborted";
  }
  const LedgerStep* step = failed->failed_step();
  if (step->outcome == StepOutcome::kOutOfMemory) {
    const Bytes missing = step->requested - step->free_at_failure;
    return "does not fit: GPU " + std::to_string(failed->rank) + " runs out of memory at step '" +
           step->name + "': it needs " + format_mib(step->requested) + " with " +
           format_mib(step->free_at_failure) + " free (" + format_mib(missing) + " short)";
  }
  return "does not fit: GPU " + std::to_string(failed->rank) + " fails at step '" + step->name +
         "': " + step->message;
}

}  // namespace gpumem
