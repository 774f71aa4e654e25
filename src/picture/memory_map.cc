#include "picture/memory_map.h"

#include <fmt/format.h>

#include "runtime/fact_ids.h"

namespace gpumem {
namespace {

double gib(Bytes b) { return static_cast<double>(b.value()) / (1LL << 30); }

std::string short_verdict(const Ledger& ledger) {
  if (ledger.fits()) return "fits: every GPU completes its start-up";
  const GpuLedger* g = ledger.first_failure();
  if (g == nullptr || g->steps.empty()) return "does not fit: the start-up was aborted";
  const LedgerStep& step = g->steps.back();
  if (step.outcome == StepOutcome::kOutOfMemory) {
    return fmt::format(
        "does not fit: GPU {} runs out of memory at {}: asks {:.2f} GiB with {:.2f} GiB free",
        g->rank, step.name, gib(step.requested), gib(step.free_at_failure));
  }
  // The engines' errors run to several sentences of advice; the first says what went wrong.
  const std::string why = step.message.substr(0, step.message.find(". "));
  return fmt::format("does not fit: GPU {} stops at {}: {}", g->rank, step.name, why);
}

}  // namespace

MemoryMap memory_map(const Ledger& ledger) {
  MemoryMap map;
  map.title = ledger.scenario + " — " + ledger.engine + " on " +
              std::to_string(ledger.gpus.size()) + "× " + ledger.gpu_type;
  map.verdict = short_verdict(ledger);
  map.calibrated = ledger.calibrated;
  map.calibration = ledger.calibration;
  map.bars.reserve(ledger.gpus.size());
  for (const GpuLedger& gpu : ledger.gpus) {
    MemoryBar bar;
    bar.label = "GPU " + std::to_string(gpu.rank);
    bar.total = gpu.total;
    bar.other_processes = gpu.used_before;
    Bytes used = gpu.used_before;
    for (const LedgerStep& step : gpu.steps) {
      for (size_t c = 0; c < kCategoryCount; ++c) bar.held[c] += step.delta_by_category[c];
      used = step.used_after;
    }
    if (!gpu.steps.empty()) {
      const LedgerStep& last = gpu.steps.back();
      bar.outcome = last.outcome;
      bar.last_step = last.name;
      if (last.outcome == StepOutcome::kOutOfMemory) {
        bar.requested = last.requested;
        bar.free_at_failure = last.free_at_failure;
      }
    }
    bar.free = bar.outcome == StepOutcome::kOutOfMemory ? bytes(0) : gpu.total - used;
    const Fact* budget = gpu.fact(fact_id::kKvBudgetBytes);
    const Fact* from = gpu.fact(fact_id::kKvBudgetFreeBytes);
    if (!ledger.fits() && budget != nullptr && from != nullptr) {
      const Bytes kv = std::get<Bytes>(budget->value);
      const Bytes free = std::get<Bytes>(from->value);
      bar.kv_budget = KvBudget{free, free - kv, kv};
      if (const Fact* rule = gpu.fact(fact_id::kKvKeptBack)) {
        map.kept_back = std::get<std::string>(rule->value);
      }
    }
    map.bars.push_back(std::move(bar));
  }
  return map;
}

}  // namespace gpumem
