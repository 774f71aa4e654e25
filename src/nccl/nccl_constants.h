// Facts about NCCL 2.28.9 and the CUDA driver that decide how much GPU memory an NCCL
// communicator takes, each with its default and where it comes from.
//
// The memory model (nccl_plan.h) never writes a size or a count inline: it reads it from
// an `NcclConstants`. Defaults are what the NCCL 2.28 source says (the GPUs we measure on
// run 2.28.9; where only the 2.28.7 file was readable the rule is the same in both) or, where
// no source can say it, a measurement on this workplace's H200 x2 (NCCL 2.28.9) or the best
// public figure, marked "calibrated by the probe". Calibration files (model/calibration/)
// override fields of this struct; nothing else changes them.
//
// Units: every size is a `Bytes`; compute capabilities are major * 10 + minor (sm_90 -> 90,
// sm_120 -> 120); channel counts are plain ints.
#ifndef GPUMEM_NCCL_NCCL_CONSTANTS_H_
#define GPUMEM_NCCL_NCCL_CONSTANTS_H_

#include <array>
#include <cstddef>
#include <span>

#include "core/units.h"

namespace gpumem {

// What NCCL's topology search sees between ring neighbours; it keys the channel-count
// rules. kShm is any pair NCCL connects through host shared memory (no CUDA P2P, a PCIe
// path beyond the P2P level, or NCCL_P2P_DISABLE=1 — then even NVLink pairs go through the
// CPU, paths.cc ncclTopoComputePaths).
enum class NcclLinkClass : unsigned char { kNvlink, kPcieP2p, kShm };

// "This many search channels on these links for these GPUs." The first matching rule
// wins. The search result is doubled by NCCL before NCCL_MIN/MAX_NCHANNELS apply.
struct NcclChannelRule {
  NcclLinkClass link = NcclLinkClass::kNvlink;
  int min_compute_capability = 0;    // inclusive
  int max_compute_capability = 999;  // inclusive
  int search_channels = 1;
};

// What libnccl's device code for one SASS target costs the CUDA context: loaded once per
// process, when the first communicator calls ncclInitKernelsForDevice.
struct NcclKernelImage {
  int arch = 0;  // SASS target, e.g. 90; runs on the same major at this minor or above
  Bytes size;    // context growth at the first ncclCommInitRank, beyond NCCL's allocations
};

struct NcclConstants {
  // --- Protocol buffers of one connection ------------------------------------------------
  // nccl 2.28 init.cc computeBuffSizes DEFAULT_LL_BUFFSIZE: 8 lines x 512 threads x 8 steps x 16 B
  Bytes ll_buffsize = bytes(524'288);
  // nccl 2.28 init.cc computeBuffSizes DEFAULT_LL128_BUFFSIZE: 120 x 640 threads x 8 steps x 8 B
  Bytes ll128_buffsize = bytes(4'915'200);
  // nccl 2.28 init.cc computeBuffSizes DEFAULT_BUFFSIZE (1 << 22)
  Bytes simple_buffsize = mib(4);
  // nccl 2.28 comm.h ncclSendMem / ncclRecvMem, each padded to MEM_ALIGN = 4096
  Bytes connection_header = kib(4);
  // nccl 2.28 comm.h CUDA_IPC_MIN; p2p.cc p2pSendSetup/p2pRecvSetup ALIGN_SIZE(size, CUDA_IPC_MIN)
  Bytes ipc_alignment = mib(2);
  // nccl 2.28 alloc.h ncclCuMemAlloc: ALIGN_SIZE(size, cuMemGetAllocationGranularity MINIMUM);
  // 2 MiB is the usual device value (cuda-memory-facts.md 2.2); calibrated by the probe.
  Bytes cumem_granularity = mib(2);

  // --- Defaults of the NCCL_* settings -----------------------------------------------------
  // nccl env.rst NCCL_CUMEM_ENABLE: auto-enabled since 2.19 when the driver supports VMM
  bool cumem_default = true;
  // nccl 2.28 init.cc NCCL_PARAM(RuntimeConnect, "RUNTIME_CONNECT", 1)
  bool runtime_connect_default = true;

  // --- Channels ----------------------------------------------------------------------------
  // nccl 2.28 device.h MAXCHANNELS
  int max_channels = 64;
  // nccl 2.28 paths.cc NCCL_PARAM(MinP2pNChannels, 1) / MaxP2pNChannels (MAXCHANNELS)
  int min_p2p_channels = 1;
  int max_p2p_channels = 64;
  // A one-rank communicator: NVIDIA/nccl issue "singleton comm allocates 512 MiB" (2.28.9 log:
  // "64 coll channels ... 64 p2p channels"), i.e. 32 search channels; calibrated by the probe.
  int single_rank_search_channels = 32;
  // Search channels per link class, each doubled by NCCL. NVLink: 24 coll channels on
  // H200 x2 (NCCL_DEBUG=INFO, 2.28.9, measured here 2026-11) and on 8x H100 NVSwitch
  // ("Channel 16/24", NVIDIA/nccl #1259). SHM: 4 coll channels on the same H200 x2 with
  // NCCL_P2P_DISABLE=1, assumed for PCIe boxes without P2P too. PCIe P2P: RTX PRO 6000 rigs
  // report "Default (2 channels)" (local-inference-lab/rtx6kpro nccl-tuning.md). PCIe values
  // calibrated by the probe.
  std::array<NcclChannelRule, 8> channel_rules = {{
      {NcclLinkClass::kNvlink, 0, 999, 12},
      {NcclLinkClass::kPcieP2p, 0, 999, 1},
      {NcclLinkClass::kShm, 0, 999, 2},
  }};
  int channel_rule_count = 3;

  // --- P2P transport -----------------------------------------------------------------------
  // nccl 2.28 paths.cc ncclTopoCheckP2p: "Enable P2P Read for Ampere/NVLink only" (both sm_80)
  int p2p_read_compute_capability = 80;
  // nccl 2.28 init.cc P2P_NVL_CHUNKSIZE (all-NVLink comms) and P2P_PCI_CHUNKSIZE
  Bytes p2p_nvl_chunk = kib(512);
  Bytes p2p_pci_chunk = kib(128);
  // nccl 2.28 device.h NCCL_STEPS: computeBuffSizes caps the p2p chunk at SIMPLE / NCCL_STEPS
  int steps = 8;
  // nccl 2.28 net.cc NCCL_SHARED_STEPS: sharedNetBuffersInit sizes p2p channels x 16 x chunk
  int shared_steps = 16;

  // --- Per-channel and per-communicator device metadata -------------------------------------
  // nccl 2.28 device.h ncclDevChannelPeer: 4 x ncclConnInfo of 152 B; the 2.28.9 ALLOC log on
  // H200 shows channel.cc "Cuda Alloc Size 1216" for 2 ranks (measured here)
  Bytes dev_channel_peer = bytes(608);
  // a device pointer (channel.cc initChannel devPeers entries, p2p.cc devPeerRmtAddrs)
  Bytes device_pointer = bytes(8);
  // an int (channel.cc devRingUserRanks, init.cc devCommSetup rankToLocalRank)
  Bytes rank_entry = bytes(4);
  // nccl 2.28 init.cc devCommSetup sizeof(ncclKernelCommAndChannels): "Cuda Alloc Size 23648"
  // in the NCCL_DEBUG_SUBSYS=ALLOC log of 2.28.9 on H200 (measured here)
  Bytes kernel_comm_and_channels = bytes(23'648);

  // --- Kernel image and kernel stack -------------------------------------------------------
  // Context growth of the first ncclCommInitRank beyond NCCL's own allocations. sm_90: the
  // free-memory delta on H200 x2 (2.28.9 via PyTorch 2.11 init_process_group, driver 580)
  // minus the ALLOC-logged allocations: 170 MiB for 2 and for 1 rank, at 2, 8, 24 and 64
  // channels. Other targets: what libnccl.so.2 2.28.9+cuda13 carries for them (.nv_fatbin
  // cubins summed over .text + .nv.constant + .nv.global); the sm_90 cubins sum to 96.5 MiB,
  // so these are likely low by the same driver overhead. The probe's own H200 x2 runs (facts
  // nccl.json) see 190 MiB at the first init beyond the logged allocations and the
  // per-communicator 2 MiB: this image plus first_module_load and process_init_overhead below.
  std::array<NcclKernelImage, 8> kernel_images = {{
      {75, bytes(46'486'106)},
      {80, bytes(46'264'410)},
      {90, mib(170)},
      {100, bytes(97'362'668)},
      {110, bytes(97'574'124)},
      {120, bytes(85'944'300)},
  }};
  int kernel_image_count = 6;
  // The first NCCL kernel launch of a process grows the context's local-memory (stack)
  // reservation for every resident thread; the driver never shrinks it (cuCtxSetLimit doc)
  // and NCCL_SET_STACK_SIZE=0 (init.cc default) leaves the growth to that launch. H200 x2:
  // 186 MiB at the first all-reduce whether or not it connected anything, i.e.
  // 714..721 B x 132 SMs x 2048 threads rounded to 2 MiB; measured on sm_90 only, assumed for
  // other targets; calibrated by the probe.
  Bytes launch_stack_per_thread = bytes(720);
  Bytes local_memory_granularity = mib(2);

  // --- Device memory at init that NCCL does not log -----------------------------------------
  // The probe (H200 x2, NCCL 2.28.9, driver 580.159.04; facts nccl.json) finds every
  // one-communicator case 22 MiB above the kernel image plus every allocation NCCL logs under
  // NCCL_DEBUG_SUBSYS=ALLOC, in both cuMem modes, at 2 to 32 channels, with P2P and with SHM.
  // Three parts, told apart by the cases that differ:
  //  * the context's first module load: 2 MiB (facts context.json after_first_kernel). NCCL's
  //    image pays it when no kernel ran before (facts nccl.json), not after one did (selftest
  //    nccl_init: 386 MiB against the facts' 388 MiB); calibrated on H200 x2;
  Bytes first_module_load = mib(2);
  //  * once per process, at the first ncclCommInitRank: the remaining 18 MiB. Calibrated on
  //    H200 x2 (facts nccl.json, all 26 one-communicator cases); no NCCL log line names it,
  //    and the PyTorch harness behind the 170 MiB image (PyTorch's CUDA work first) did not
  //    see it;
  Bytes process_init_overhead = mib(18);
  //  * every ncclCommInitRank: the second communicator of facts nccl.json "default settings,
  //    two communicators" takes 198 MiB for 196 MiB of logged allocations; calibrated on
  //    H200 x2.
  Bytes communicator_init_overhead = mib(2);

  // --- CUDA-graph capture of a collective ----------------------------------------------------
  // nccl 2.28 device.h ncclMaxKernelArgsSize: 4 KiB; finishPlan keeps the work in the kernel
  // arguments when it fits, otherwise a captured launch gets a persistent device work buffer.
  Bytes kernel_args_limit = kib(4);
  // nccl 2.28 device.h sizeof(ncclDevKernelArgs) (alignas 16: 3 pointers + 2 words)
  Bytes kernel_args_header = bytes(32);
  // nccl 2.28 device.h sizeof(ncclDevWorkBatch): flags, offsetBase, offsetBitset
  Bytes work_batch = bytes(16);
  // nccl 2.28 device.h ncclDevWorkBatch offsetBitset: one bit per work in a batch
  int works_per_batch = 64;
  // nccl 2.28 device.h sizeof(ncclDevWorkColl), alignas 16 (layout read, not run)
  Bytes work_coll = bytes(112);
  // nccl 2.28 enqueue.cc uploadWork: persistent buffers come from cudaMallocAsync on the
  // communicator's pool (init.cc commAlloc, release threshold ~0), which maps physical memory
  // in steps of this size; calibrated by the probe.
  Bytes mem_pool_granularity = mib(2);
  // Graph memory one captured NCCL kernel launch adds at cudaGraphInstantiate (its kernel node
  // with NCCL's 4 KiB argument block, and the event nodes that join NCCL's stream to the
  // capture), taken in steps of `graph_memory_step` per communicator. Calibrated on H200 x2:
  // facts graphs.json, one captured 1 MiB all-reduce per graph: 2 MiB for the first graph,
  // 0 for the second (cuMem on and off); probe SGLang Llama-3.1-8B TP 2, 36 graphs x 64
  // in-place all-reduces: the cuda_graphs step takes 184 MiB beyond the probe's allocations
  // without custom all-reduce, 44 MiB with it, whose 2,304 custom kernel nodes cost ~5.5 MiB
  // (2,516 B per node, graphs.json graph_nodes): ~145.5 MiB for 2,304 launches, 64 KiB each.
  Bytes captured_launch_graph_memory = kib(64);
  Bytes graph_memory_step = mib(2);

  std::span<const NcclChannelRule> rules() const {
    return {channel_rules.data(), static_cast<std::size_t>(channel_rule_count)};
  }
  std::span<const NcclKernelImage> images() const {
    return {kernel_images.data(), static_cast<std::size_t>(kernel_image_count)};
  }
};

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_CONSTANTS_H_
