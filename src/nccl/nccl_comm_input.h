// What the NCCL memory model needs to know about one rank of one communicator.
//
// gpumem models single-node communicators (every rank on one host): the ranks of a TP or
// DP group of an LLM server. The input names the hardware between the GPUs, the rank's
// position, the GPU generation and the NCCL_* settings the process runs with
// (`NcclSettings` from device/comm.h; unset fields mean NCCL's default).
#ifndef GPUMEM_NCCL_NCCL_COMM_INPUT_H_
#define GPUMEM_NCCL_NCCL_COMM_INPUT_H_

#include <optional>

#include "device/comm.h"

namespace gpumem {

// How the GPUs of the communicator are connected, as NCCL's transport choice sees it.
enum class NcclInterconnect : unsigned char {
  kNvlink,            // every pair over NVLink / NVSwitch (HGX H100, H200)
  kPciePeerToPeer,    // PCIe, and NCCL's default P2P level admits CUDA P2P between the GPUs
  kPcieNoPeerToPeer,  // PCIe, GPUs beyond the default P2P level or without CUDA P2P: SHM
};

// PCIe path between two GPUs, in nvidia-smi topo -m / NCCL naming. Only read when
// NCCL_P2P_LEVEL names a PCIe level on a PCIe box: the level is compared against this path.
enum class NcclPciePath : unsigned char { kPix, kPxb, kPhb, kSys };

struct NcclCommInput {
  int nranks = 1;
  // This rank's position along NCCL's ring: 0 .. nranks - 1. NCCL's single-node tree is a
  // chain in the same order (reversed on half the channels, which needs the same extra
  // connections), so the position decides which tree connections the ring has not made.
  int position = 0;
  NcclInterconnect interconnect = NcclInterconnect::kNvlink;
  std::optional<NcclPciePath> pcie_path;
  int compute_capability = 90;  // major * 10 + minor: 90 for H100/H200, 120 for RTX PRO 6000
  // SMs x max resident threads per SM (H200: 132 x 2048; RTX PRO 6000: 188 x 1536): the
  // threads the context reserves kernel stack for. Needed when `first_launch_in_process`.
  int resident_threads = 0;
  // The first communicator of the process loads NCCL's kernels into the CUDA context.
  bool first_in_process = true;
  // A kernel module was loaded into the context before this communicator (some kernel ran):
  // then NCCL's image is not the context's first module and does not pay its first load.
  bool context_has_modules = false;
  // This communicator's first collective is the process's first NCCL kernel launch. A
  // one-rank communicator never launches one (its all-reduce is a local copy), so the first
  // multi-rank communicator of the process sets this.
  bool first_launch_in_process = true;
  NcclSettings settings;
};

}  // namespace gpumem

#endif  // GPUMEM_NCCL_NCCL_COMM_INPUT_H_
