// A Device that records every call the start-up program makes on it into an OpsRecorder,
// then makes it on the device it wraps (the simulated GPU, whose answers steer the program
// exactly as in `gpumem simulate`).
//
// Only the program's own calls pass through here: the caching allocator is built on the
// wrapped device, so the segments it takes are not operations — PyTorch's allocator, which
// the runner replays the requests through, takes its own. mem_get_info is recorded with
// the free memory the simulator answered, so a replay can set the measured reading beside
// it. IPC calls are recorded by what they did (the runner does not replay them yet and
// says so).
#ifndef GPUMEM_OPSTRACE_RECORDING_DEVICE_H_
#define GPUMEM_OPSTRACE_RECORDING_DEVICE_H_

#include "device/device.h"
#include "opstrace/ops_recorder.h"

namespace gpumem {

class RecordingDevice final : public Device {
 public:
  // Both must outlive this object.
  RecordingDevice(Device& inner, OpsRecorder& recorder);

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

 private:
  Device& inner_;
  OpsRecorder& recorder_;
};

}  // namespace gpumem

#endif  // GPUMEM_OPSTRACE_RECORDING_DEVICE_H_
