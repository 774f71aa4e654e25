// A Comm that records every communicator call of the start-up program into an OpsRecorder,
// then makes it on the Comm it wraps (the simulated NCCL, whose memory model keeps the
// program's decisions those of `gpumem simulate`).
//
// The trace carries one NCCL environment for the whole process (NCCL reads its variables
// once), so a communicator asked for with other settings is refused rather than recorded
// under the wrong ones. Host-side exchanges are recorded too: they carry no memory, but they
// synchronise the ranks, and a replay on several GPUs makes them as the engine does, so that one
// rank's NCCL work never overtakes another's.
#ifndef GPUMEM_OPSTRACE_RECORDING_COMM_H_
#define GPUMEM_OPSTRACE_RECORDING_COMM_H_

#include "device/comm.h"
#include "opstrace/ops_recorder.h"

namespace gpumem {

class RecordingComm final : public Comm {
 public:
  // `inner` and `recorder` must outlive this object; `environment` is the process's NCCL
  // settings, which every communicator must ask for.
  RecordingComm(Comm& inner, OpsRecorder& recorder, const NcclSettings& environment);

  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  Result<CommunicatorId> create_communicator(const std::vector<int>& ranks,
                                             const NcclSettings& settings) override;
  Status all_reduce(CommunicatorId comm, DevicePtr buffer, Bytes size) override;
  Result<Bytes> min_over_world(Bytes local, bool as_float32) override;
  Result<std::int64_t> min_over_world(std::int64_t local) override;
  Result<std::vector<IpcHandle>> all_gather(const std::vector<int>& ranks,
                                            const IpcHandle& mine) override;
  Status barrier() override;

 private:
  Comm& inner_;
  OpsRecorder& recorder_;
  const NcclSettings environment_;
};

}  // namespace gpumem

#endif  // GPUMEM_OPSTRACE_RECORDING_COMM_H_
