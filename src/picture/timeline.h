// Start-ups as timelines in Chrome Trace Event JSON (chrome_trace.h), to open in Perfetto UI
// or chrome://tracing: one process per GPU, its start-up steps as slices on one thread, and
// counter tracks of memory in MiB sampled at the end of every step.
//
// Predicted processes carry a counter per ledger category (context, communication, weights,
// kv, graphs, workspace, activations, other: what the GPU holds for it), "used" and "free"
// as cudaMemGetInfo would report them (with the peak inside a step sampled mid-slice), and
// PyTorch's allocated/reserved. Measured processes (from probe traces) carry "used", "free",
// PyTorch's allocated/reserved as the probe's allocator emulation saw them, and "own <category>"
// counters: what the probe itself allocated — memory that the driver or NCCL take for
// themselves shows in "used" only.
//
// The simulator has no clock: alone, predicted steps are laid one millisecond apart. Next to
// a probe run, both sides use the run's clock — a predicted step takes the start and length
// of the measured step of the same name — so the two start-ups line up slice for slice.
#ifndef GPUMEM_PICTURE_TIMELINE_H_
#define GPUMEM_PICTURE_TIMELINE_H_

#include <string>
#include <vector>

#include "calib/trace.h"
#include "runtime/ledger.h"

namespace gpumem {

// The predicted start-up of every GPU of `ledger`.
std::string predicted_timeline(const Ledger& ledger);

// For each rank of `traces` (one probe run of the scenario `ledger` predicts), its measured
// process next to its predicted one, on the run's clock.
std::string compared_timeline(const Ledger& ledger, const std::vector<Trace>& traces);

}  // namespace gpumem

#endif  // GPUMEM_PICTURE_TIMELINE_H_
