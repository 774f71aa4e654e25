// A small hand-built ledger for the picture tests: two GPUs of 8 GiB, 256 MiB used by other
// processes on each; GPU 0 completes context (+512 MiB), weights (+1024 MiB, peak 1536 MiB
// above the context) and kv (+4096 MiB); GPU 1 runs out of memory in kv asking for 7000 MiB
// with 6400 MiB free. Every figure is a whole MiB so expected values are plain arithmetic.
#ifndef GPUMEM_TESTS_PICTURE_TWO_GPU_LEDGER_H_
#define GPUMEM_TESTS_PICTURE_TWO_GPU_LEDGER_H_

#include "runtime/ledger.h"

namespace gpumem {

inline LedgerStep test_step(const char* name, Category c, Bytes delta, Bytes used_after,
                            Bytes total) {
  LedgerStep s;
  s.name = name;
  s.delta_by_category[static_cast<size_t>(c)] = delta;
  s.used_after = used_after;
  s.free_after = total - used_after;
  s.peak_used = used_after;
  return s;
}

inline Ledger two_gpu_ledger() {
  const Bytes total = gib(8);
  Ledger l;
  l.scenario = "two-gpus";
  l.engine = "sglang 0.5.9";
  l.gpu_type = "test-gpu";
  l.calibration = "test";
  l.calibrated = true;
  for (int r = 0; r < 2; ++r) {
    GpuLedger g;
    g.gpu = r;
    g.rank = r;
    g.total = total;
    g.used_before = mib(256);
    g.steps.push_back(test_step("context", Category::kContext, mib(512), mib(768), total));
    g.steps.push_back(test_step("weights", Category::kWeights, mib(1024), mib(1792), total));
    g.steps.back().peak_used = mib(2304);
    g.steps.back().log_lines = {"Load weight end."};
    if (r == 0) {
      g.steps.push_back(test_step("kv", Category::kKvCache, mib(4096), mib(5888), total));
    } else {
      LedgerStep oom = test_step("kv", Category::kKvCache, mib(0), mib(1792), total);
      oom.outcome = StepOutcome::kOutOfMemory;
      oom.requested = mib(7000);
      oom.free_at_failure = mib(6400);
      g.steps.push_back(oom);
    }
    l.gpus.push_back(g);
  }
  return l;
}

}  // namespace gpumem

#endif  // GPUMEM_TESTS_PICTURE_TWO_GPU_LEDGER_H_
