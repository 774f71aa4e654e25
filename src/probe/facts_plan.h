// What `gpumem-probe facts` measures: the list of measurements, each run in fresh processes.
//
// The plan is data shared by the two halves of the facts run: the supervising parent walks it
// to start workers, and each worker looks its measurement up by kind and index, so both always
// agree on sizes and settings. Every measurement that creates CUDA or NCCL state that would
// leak into the next one (a context, cached driver pages, NCCL's cached parameters) gets
// processes of its own.
//
// Results are grouped into one JSON file per group (FactGroup), at most 8 files in all.
#ifndef GPUMEM_PROBE_FACTS_PLAN_H_
#define GPUMEM_PROBE_FACTS_PLAN_H_

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/units.h"
#include "device/comm.h"

namespace gpumem::probe {

enum class FactGroup { kProvenance, kContext, kMalloc, kIpc, kNccl, kGraphs, kCublas };

inline constexpr std::array<FactGroup, 7> kFactGroups = {
    FactGroup::kProvenance, FactGroup::kContext, FactGroup::kMalloc, FactGroup::kIpc,
    FactGroup::kNccl,       FactGroup::kGraphs,  FactGroup::kCublas};

// "provenance", "context", … — also the output file's stem.
std::string_view fact_group_name(FactGroup g);

// What a worker process measures.
enum class FactKind {
  kCountGpus,   // cudaGetDeviceCount, before anything else
  kProvenance,  // the GPU, driver, libraries, topology
  kContext,     // context creation, under one CUDA_MODULE_LOADING value
  kMalloc,      // cudaMalloc footprint of one size (index into malloc_sweep())
  kCuMem,       // cuMem granularity and the footprint of one granule
  kIpc,         // importer cost of opening peer IPC handles (2 ranks)
  kNccl,        // one NCCL case (index into nccl_cases())
  kGraphNodes,  // graph executable bytes per kernel node
  kGraphNccl,   // an all-reduce captured into a graph (index into graph_nccl_cases())
  kCublas,      // cublasCreate and the first GEMM
};

std::string_view fact_kind_name(FactKind k);
// Inverse of fact_kind_name; kInvalidInput for an unknown name.
Result<FactKind> fact_kind_from_name(std::string_view name);

struct FactJob {
  std::string name;  // unique, readable: "malloc 1048577 B x 511"
  FactKind kind;
  FactGroup group;
  int index = 0;           // into the kind's list (sweep point, NCCL case)
  int ranks = 1;           // processes, one per GPU
  bool every_gpu = false;  // a one-process job repeated on every GPU
  std::vector<std::pair<std::string, std::string>> env_set;
  std::vector<std::string> env_unset;
  bool nccl_debug = false;  // capture NCCL's INIT/ALLOC log per rank
};

// One point of the cudaMalloc footprint sweep: `count` allocations of `size`.
struct SweepPoint {
  Bytes size;
  int count;
};

// The sizes of the sweep, each with the count sweep_count() gives it.
std::vector<SweepPoint> malloc_sweep();

// How many allocations of `size` make one sweep point: enough for about kSweepTotal in all,
// at least 2 (so that the footprint is an average), at most kSweepMaxCount.
inline constexpr Bytes kSweepTotal = mib(512);
inline constexpr int kSweepMaxCount = 4096;
int sweep_count(Bytes size);

// One NCCL configuration of the facts matrix.
struct NcclCase {
  std::string name;  // "cumem=0 runtime_connect=1 buffsize=1048576 channels=2"
  NcclSettings settings;
  bool second_communicator = false;  // also create and use a second communicator
  bool host_staged = false;          // P2P off: the PCIe-box emulation
};

// The matrix NCCL_CUMEM_ENABLE {0,1} x NCCL_RUNTIME_CONNECT {0,1} x NCCL_BUFFSIZE
// {default, 1 MiB} x channels {default, 2, 8}, then NCCL_P2P_DISABLE=1 and
// NCCL_P2P_LEVEL=LOC (host-staged), then all defaults with a second communicator.
std::vector<NcclCase> nccl_cases();

// The all-reduce-in-a-graph cases: NCCL_CUMEM_ENABLE=0 and =1.
std::vector<NcclCase> graph_nccl_cases();

// Kernel-node counts of the graph-executable measurement.
inline constexpr std::array<int, 4> kGraphNodeCounts = {1, 100, 1000, 10000};

// The CUDA_MODULE_LOADING values of the context measurement; empty: left as inherited.
inline constexpr std::array<std::string_view, 3> kModuleLoadingModes = {"", "LAZY", "EAGER"};

// Buffer sizes and handle counts of the IPC measurement.
inline constexpr std::array<Bytes, 2> kIpcBufferSizes = {mib(2), gib(1)};
inline constexpr std::array<int, 3> kIpcOpenCounts = {1, 8, 64};

// All-reduce sizes of the NCCL measurement: a first small one, then a first large one.
inline constexpr Bytes kNcclSmallAllReduce = kib(4);
inline constexpr Bytes kNcclLargeAllReduce = mib(64);

// The jobs, with the NCCL measurements on `nccl_ranks` ranks. Jobs that need more GPUs than
// a machine has stay in the plan; the runner reports them as skipped. Single-GPU jobs come
// first, then the multi-GPU ones, most informative first.
std::vector<FactJob> facts_plan(int nccl_ranks);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_FACTS_PLAN_H_
