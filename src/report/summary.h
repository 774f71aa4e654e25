// The verdict first: what `gpumem simulate` prints by default, readable in five seconds.
//
//   h200x1-llama-3.1-8b: sglang 0.5.9 on 1 x h200-sxm-141gb (calibrated: h200-sxm-141gb)
//   STARTS
//     KV cache        911,860 tokens (113,982.63 MiB per GPU)
//     concurrency     6.96 requests of the maximum length (131,072 tokens); 3,561 running at most
//     headroom        10,722.08 MiB free at the tightest step (GPU 0, cuda_graphs)
//
// or, when it does not start, which GPU stops at which step and why, by how much it is short,
// and what would make it start — as the corrected launch command when the scenario came from
// one. Uncalibrated GPUs are said to be. The per-step table follows only under --detail.
#ifndef GPUMEM_REPORT_SUMMARY_H_
#define GPUMEM_REPORT_SUMMARY_H_

#include <string>
#include <vector>

#include "runtime/ledger.h"

namespace gpumem {

// `fixes`: one line per alternative that starts (a corrected launch command, or the flag and
// value); empty when the advice found none or was not searched.
std::string render_summary(const Ledger& ledger, const std::vector<std::string>& fixes);

}  // namespace gpumem

#endif  // GPUMEM_REPORT_SUMMARY_H_
