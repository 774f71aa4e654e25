// A simulated GPU: the `Device` seam over a model of the driver's memory accounting.
//
// Capacity is CUDA's total (nvidia-smi's total minus the driver reserve). Memory is taken by
// other processes (`preoccupied`), by this process's context (created on first use, sized
// from the SM count), and by raw allocations rounded as the driver rounds them. Everything is
// exact integer bookkeeping, per category, with a high-water mark the ledger reads per step.
// Addresses are synthetic, unique and never reused, so a stale pointer is caught.
#ifndef GPUMEM_SIM_SIM_DEVICE_H_
#define GPUMEM_SIM_SIM_DEVICE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "device/device.h"
#include "sim/device_constants.h"

namespace gpumem {

// CUDA's total memory of `gpu` (torch's total_memory): the catalog's CUDA total, else
// nvidia-smi's total less the driver reserve of `constants`.
Bytes cuda_total_memory(const GpuSpec& gpu, const DeviceConstants& constants);

class SimDevice final : public Device {
 public:
  SimDevice(const GpuSpec& gpu, const DeviceConstants& constants, Bytes preoccupied);

  Status init_context() override;
  MemInfo mem_get_info() override;
  Result<DevicePtr> malloc(Bytes size, Category category) override;
  void free(DevicePtr ptr) override;
  Result<IpcHandle> ipc_export(DevicePtr ptr) override;
  Result<DevicePtr> ipc_open(const IpcHandle& handle) override;
  void ipc_close(DevicePtr mapped) override;
  Status begin_graph_capture() override;
  Status launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) override;
  Status launch_kernels(int count, Bytes bytes_touched) override;
  Result<GraphId> end_graph_capture() override;
  Status load_library(std::string_view library) override;
  Status use_pytorch_resource(PytorchResource resource) override;

  // Memory the driver takes for itself on behalf of a library, with no allocation to free:
  // kernels loaded into the context, a grown stack reservation. kOutOfMemory if it does not
  // fit.
  Status charge_driver(Bytes size, Category category, std::string_view what);

  bool capturing() const { return state_.capturing; }

  // What the driver charges for a raw allocation of `size`.
  Bytes footprint(Bytes size) const;

  Bytes total() const { return state_.total; }
  Bytes used() const { return state_.used; }  // includes other processes' memory
  Bytes used_by(Category c) const { return state_.by_category[static_cast<size_t>(c)]; }
  Bytes peak_used() const { return state_.peak; }
  void reset_peak() { state_.peak = state_.used; }
  // The peak becomes at least `floor` (a peak reset, then raised to the peak before it, is
  // the peak without the reset).
  void raise_peak(Bytes floor) { state_.peak = std::max(state_.peak, floor); }

  // The last allocation that did not fit, for the ledger's OOM record.
  struct FailedRequest {
    Bytes requested;
    Bytes free;
    friend bool operator==(const FailedRequest&, const FailedRequest&) = default;
  };
  const FailedRequest& last_failure() const { return state_.last_failure; }

  struct Allocation {
    std::uint64_t address;
    Bytes footprint;
    Bytes size;
    Category category;
    bool live;
    friend bool operator==(const Allocation&, const Allocation&) = default;
  };

  // Everything the device holds besides its constants. Two devices with equal constants and
  // equal states answer every call alike, so a memoised replay can restore the state a
  // replay ended in (sim/weight_load_memo.h).
  struct State {
    Bytes total;
    Bytes context_size;
    bool context_created = false;
    Bytes used;
    Bytes peak;
    std::array<Bytes, kCategoryCount> by_category{};
    // Every allocation made, by address: addresses only grow, so a new one goes at the end,
    // and a freed one stays as a tombstone (live = false) rather than shifting the rest —
    // a start-up makes thousands of cudaMallocs and empty_cache frees them in bulk.
    std::vector<Allocation> allocations;
    std::unordered_map<std::uint64_t, Bytes> ipc_mappings;
    std::uint64_t next_address = 1ULL << 40;
    // Small cudaMallocs share pages: what is left of the page they are packed into.
    Bytes small_page_left;
    // Graph executables: what instantiated graphs use of the driver's pool, and the pool.
    Bytes graph_exec_used;
    Bytes graph_exec_reserved;
    bool capturing = false;
    bool captured_before = false;
    bool launched_before = false;
    int nodes_in_capture = 0;
    int graphs = 0;
    std::unordered_map<std::string, bool> libraries_loaded;
    std::array<bool, kPytorchResourceCount> pytorch_resources{};
    FailedRequest last_failure{bytes(0), bytes(0)};
    friend bool operator==(const State&, const State&) = default;
  };
  const DeviceConstants& constants() const { return constants_; }
  const State& state() const { return state_; }
  void restore(const State& state) { state_ = state; }
  void restore(State&& state) { state_ = std::move(state); }

 private:
  void charge(Bytes b, Category c);
  void release(Bytes b, Category c);
  // Charges `resource` at its first use, named by the program or implied by a capture.
  Status create_pytorch_resource(PytorchResource resource);
  // The live allocation at `address`; null when there is none.
  Allocation* find_allocation(std::uint64_t address);

  const DeviceConstants constants_;
  State state_;
};

}  // namespace gpumem

#endif  // GPUMEM_SIM_SIM_DEVICE_H_
