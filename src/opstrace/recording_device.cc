#include "opstrace/recording_device.h"

#include <string>

namespace gpumem {

using nlohmann::json;

RecordingDevice::RecordingDevice(Device& inner, OpsRecorder& recorder)
    : inner_(inner), recorder_(recorder) {}

Status RecordingDevice::init_context() {
  recorder_.record(json::array({"context"}));
  return inner_.init_context();
}

MemInfo RecordingDevice::mem_get_info() {
  const MemInfo m = inner_.mem_get_info();
  recorder_.record(json::array({"mem_get_info", m.free.value()}));
  return m;
}

Result<DevicePtr> RecordingDevice::malloc(Bytes size, Category category) {
  Result<DevicePtr> p = inner_.malloc(size, category);
  if (!p.ok()) {
    recorder_.record(
        json::array({"malloc_failed", size.value(), std::string(category_name(category))}));
    return p;
  }
  recorder_.record(json::array(
      {"malloc", recorder_.raw_allocated(*p), size.value(), std::string(category_name(category))}));
  return p;
}

void RecordingDevice::free(DevicePtr ptr) {
  recorder_.record(json::array({"raw_free", recorder_.raw_freed(ptr)}));
  inner_.free(ptr);
}

Result<IpcHandle> RecordingDevice::ipc_export(DevicePtr ptr) {
  // What is exported is a whole segment (a base allocation), which the trace does not name:
  // its size is recorded.
  Result<IpcHandle> h = inner_.ipc_export(ptr);
  if (h.ok()) recorder_.record(json::array({"ipc_export", h->size.value()}));
  return h;
}

Result<DevicePtr> RecordingDevice::ipc_open(const IpcHandle& handle) {
  recorder_.record(json::array({"ipc_open", handle.size.value()}));
  return inner_.ipc_open(handle);
}

void RecordingDevice::ipc_close(DevicePtr mapped) {
  recorder_.record(json::array({"ipc_close"}));
  inner_.ipc_close(mapped);
}

Status RecordingDevice::begin_graph_capture() {
  recorder_.record(json::array({"capture_begin"}));
  return inner_.begin_graph_capture();
}

Status RecordingDevice::launch_kernel(std::span<const DevicePtr> buffers, Bytes bytes_touched) {
  recorder_.record(json::array({"kernels", 1, bytes_touched.value()}));
  return inner_.launch_kernel(buffers, bytes_touched);
}

Status RecordingDevice::launch_kernels(int count, Bytes bytes_touched) {
  recorder_.record(json::array({"kernels", count, bytes_touched.value()}));
  return inner_.launch_kernels(count, bytes_touched);
}

Result<GraphId> RecordingDevice::end_graph_capture() {
  recorder_.record(json::array({"capture_end"}));
  return inner_.end_graph_capture();
}

Status RecordingDevice::load_library(std::string_view library) {
  recorder_.record(json::array({"library", std::string(library)}));
  return inner_.load_library(library);
}

Status RecordingDevice::use_pytorch_resource(PytorchResource resource) {
  recorder_.record(json::array({"torch", std::string(pytorch_resource_name(resource))}));
  return inner_.use_pytorch_resource(resource);
}

}  // namespace gpumem
