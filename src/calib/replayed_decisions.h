// A torch-probe trace replays a program whose decisions were made by gpumem's simulation
// when it was exported (src/opstrace): the KV cache's size came from the simulator's F and
// A (SGLang) or its profile (vLLM), not from the replay's readings. Checking or fitting
// such a trace with other constants would re-decide — a vLLM CUDA-graph estimate grows
// with the first capture's cost, and its KV cache shrinks — and compare two different
// programs. So the engine's readings the trace carries are pinned into the scenario's
// `observed` values (as a user pins logged ones), and the simulation makes the decisions
// the replay made, operation for operation.
//
// The same holds for the program itself: a replay of a gpumem.ops.v1 trace ran the program
// as exported before it named PyTorch's stream pool and ATen module (Device::
// use_pytorch_resource), so it created both at its first capture; its simulation leaves
// the named uses out, and the first capture creates both there too.
//
// And the machine: CUDA's total is the driver's, not the GPU type's (an H100 80GB HBM3 shows
// 85,017,493,504 B under driver 580.159.04, where public logs of older drivers print 79.19
// GiB, the catalog's 81,090 MiB), and every engine sizes its KV cache from it; a check of the
// engine's steps on that machine takes the total gpumem-probe's trace read. A torch replay's
// decisions were made by the simulation that exported it, on the catalog's GPU.
#ifndef GPUMEM_CALIB_REPLAYED_DECISIONS_H_
#define GPUMEM_CALIB_REPLAYED_DECISIONS_H_

#include "calib/trace.h"
#include "catalog/gpu_catalog.h"
#include "catalog/scenario.h"
#include "simulate/simulate.h"

namespace gpumem {

// `s` with every engine reading of `trace`'s facts pinned; unchanged for a trace of
// gpumem-probe, whose readings are measured and checked, not pinned.
Scenario with_replayed_decisions(Scenario s, const Trace& trace);

// `c` for the program `trace`'s run replayed: without the named PyTorch-resource uses for a
// replay of a gpumem.ops.v1 trace; unchanged otherwise.
SimulationConstants with_replayed_program(SimulationConstants c, const Trace& trace);

// `gpus` with the scenario's GPU type given the CUDA total a gpumem-probe `trace` read;
// unchanged for a torch replay.
GpuCatalog with_traced_machine(const GpuCatalog& gpus, const Scenario& s, const Trace& trace);

}  // namespace gpumem

#endif  // GPUMEM_CALIB_REPLAYED_DECISIONS_H_
