// The memory map of a start-up, the data `gpumem plot` draws: for each GPU, what its memory
// holds by category when the start-up ends — or when it stopped — next to its capacity.
//
// Invariant: other_processes + Σ held == used at the GPU's last step (the ledger's steps
// change device use only through their categories), so a bar's segments plus `free` add up
// to the GPU's total. A GPU that ran out of memory has no free segment: it shows the request
// that did not fit instead, stacked on what it held, reaching past the capacity line.
//
// A start-up that does not fit also carries each GPU's KV budget as its engine computed it:
// the free memory after the weights, what the engine keeps back from it (SGLang:
// F x (1 - mem_fraction_static); vLLM: what lies above total x utilization, the activation
// peak, non-torch memory and the graph estimate) and what the KV cache would get, which is
// negative when the engine keeps back more than there is — the cause at a glance.
#ifndef GPUMEM_PICTURE_MEMORY_MAP_H_
#define GPUMEM_PICTURE_MEMORY_MAP_H_

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/units.h"
#include "device/category.h"
#include "runtime/ledger.h"

namespace gpumem {

struct KvBudget {
  Bytes free_after_weights;
  Bytes kept_back;  // free_after_weights - kv_cache
  Bytes kv_cache;   // may be negative
};

struct MemoryBar {
  std::string label;      // "GPU 3"
  Bytes total;            // CUDA's total for the GPU
  Bytes other_processes;  // in use before the engine started
  std::array<Bytes, kCategoryCount> held{};
  Bytes free;                              // at the end; zero when the GPU ran out
  StepOutcome outcome = StepOutcome::kOk;  // of the GPU's last step
  std::string last_step;                   // its name
  Bytes requested;                         // when it ran out: the allocation that did not fit
  Bytes free_at_failure;
  std::optional<KvBudget> kv_budget;  // set when the start-up does not fit and it was computed
};

struct MemoryMap {
  std::string title;  // "h200x2-llama-3.1-8b-tp2 — sglang 0.5.9 on 2× h200-sxm-141gb"
  // One line: "fits: …", or the first GPU that failed, where, and why (an out-of-memory
  // request and the free memory, or the first sentence of the engine's error).
  std::string verdict;
  bool calibrated = true;
  std::string calibration;      // the constants' name (runtime/constants_note.h)
  std::string kept_back;        // what the engine keeps back from the KV budget, in words
  std::vector<MemoryBar> bars;  // one per GPU, in rank order
};

MemoryMap memory_map(const Ledger& ledger);

}  // namespace gpumem

#endif  // GPUMEM_PICTURE_MEMORY_MAP_H_
