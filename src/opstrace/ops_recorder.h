// The operation trace of one rank's start-up program (format "gpumem.ops/2", README.md
// here): every step boundary, log line, allocator request and device or communicator call
// the program made, in order, as JSON arrays the torch probe's runner replays inside a real
// PyTorch process (src/probe/torch/run_ops.py).
//
// The recorder is the rank's StepObserver (it forwards to the observer that keeps the
// simulator's ledger) and its allocator's AllocatorObserver; RecordingDevice and
// RecordingComm add the device and communicator calls. Blocks and raw allocations get ids
// in the order they are made, so a free or a collective names the tensor it uses, not an
// address: the runner's addresses are PyTorch's, not the simulator's.
#ifndef GPUMEM_OPSTRACE_OPS_RECORDER_H_
#define GPUMEM_OPSTRACE_OPS_RECORDER_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "alloc/allocator_observer.h"
#include "alloc/caching_allocator.h"
#include "device/step_observer.h"

namespace gpumem {

class OpsRecorder final : public StepObserver, public AllocatorObserver {
 public:
  // `inner` sees every step call too; `allocator` is read for the emulation's numbers at the
  // end of each step. Both must outlive the recorder.
  OpsRecorder(StepObserver& inner, const CachingAllocator& allocator);

  void begin_step(std::string_view name) override;
  void end_step(const Status& outcome) override;
  void log_line(std::string_view line) override;

  void allocated(Bytes size, Category category, BlockHandle block, DevicePtr address) override;
  void allocation_failed(Bytes size, Category category, const Status& why) override;
  void freed(BlockHandle block) override;
  void cache_emptied() override;
  void pool_created(PoolId pool) override;
  void routing_began(PoolId pool) override;
  void routing_ended(PoolId pool) override;
  void pool_released(PoolId pool) override;
  void peaks_reset() override;

  // A device or communicator call, already in the trace's form.
  void record(nlohmann::json op);
  // A raw device allocation (cudaMalloc outside the caching allocator): its id.
  std::int64_t raw_allocated(DevicePtr address);
  // The id of the raw allocation at `address`, which is freed; -1 when there is none.
  std::int64_t raw_freed(DevicePtr address);
  // What a collective's buffer is: ["block", id] or ["raw", id] for the start of a live
  // tensor or raw allocation, null for the implementation's own scratch buffer (a null
  // pointer); kInternal for any other address (the runner could not find it).
  Result<nlohmann::json> buffer(DevicePtr address) const;

  const nlohmann::json& ops() const { return ops_; }

 private:
  static std::uint64_t key(BlockHandle block);

  StepObserver& inner_;
  const CachingAllocator& allocator_;
  nlohmann::json ops_ = nlohmann::json::array();
  std::int64_t next_id_ = 0;
  std::map<std::uint64_t, std::int64_t> block_ids_;       // by handle
  std::map<std::uint64_t, std::int64_t> block_at_;        // live blocks by address
  std::map<std::uint64_t, std::uint64_t> block_address_;  // address of each live handle
  std::map<std::uint64_t, std::int64_t> raw_at_;          // live raw allocations by address
};

}  // namespace gpumem

#endif  // GPUMEM_OPSTRACE_OPS_RECORDER_H_
