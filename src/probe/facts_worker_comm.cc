// Multi-GPU measurements of `gpumem-probe facts`: IPC mappings, NCCL communicators, an
// all-reduce captured into a graph. See facts_worker.h.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <vector>

#include "probe/facts_worker.h"
#include "probe/host_collectives.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

// The buffer an all-reduce inside a graph works on.
constexpr Bytes kGraphAllReduce = mib(1);

// Allocations made before the first sample, so that a measurement sees only what NCCL (or
// the driver) takes.
Result<DevicePtr> preallocate(RankRuntime& rt, Bytes size) {
  return rt.device().malloc(size, Category::kActivations);
}

json settings_json(const NcclSettings& s) {
  json j = json::object();
  if (s.cumem_enable) j["cumem_enable"] = *s.cumem_enable;
  if (s.runtime_connect) j["runtime_connect"] = *s.runtime_connect;
  if (s.buffsize) j["buffsize"] = s.buffsize->value();
  if (s.min_channels) j["min_channels"] = *s.min_channels;
  if (s.max_channels) j["max_channels"] = *s.max_channels;
  if (s.p2p_disable) j["p2p_disable"] = *s.p2p_disable;
  if (s.p2p_level) j["p2p_level"] = *s.p2p_level;
  return j;
}

std::vector<int> world_ranks(const RankRuntime& rt) {
  std::vector<int> all(static_cast<std::size_t>(rt.env().world_size));
  for (int r = 0; r < rt.env().world_size; ++r) all[r] = r;
  return all;
}

}  // namespace

Status measure_ipc(RankRuntime& rt, json& data) {
  if (rt.env().world_size != 2) return invalid_input("the IPC measurement runs on exactly 2 ranks");
  GPUMEM_RETURN_IF_ERROR(rt.device().init_context());
  const bool exporter = rt.env().rank == 0;
  const int peer_gpu = rt.env().local_rank == 0 ? 1 : 0;
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, rt.device().ordinal(), peer_gpu) == cudaSuccess) {
    data["can_access_peer"] = can != 0;
  } else {
    (void)cudaGetLastError();
    data["can_access_peer"] = nullptr;
  }
  data["role"] = exporter ? "exporter" : "importer";
  GPUMEM_RETURN_IF_ERROR(rt.exchange().barrier("ipc_start"));
  const int most = kIpcOpenCounts.back();
  json sizes = json::array();
  Status s = Status::ok_status();
  for (Bytes size : kIpcBufferSizes) {
    json entry = {{"buffer_size", size.value()}};
    SampleLog log;
    std::vector<DevicePtr> buffers;
    std::string payload;
    if (exporter) {
      log.add("before_alloc", rt.sampler().read());
      for (int i = 0; i < most && s.ok(); ++i) {
        auto p = rt.device().malloc(size, Category::kCommunication);
        if (!p.ok()) {
          s = p.status();
          break;
        }
        buffers.push_back(*p);
        auto h = rt.device().ipc_export(*p);
        if (!h.ok()) {
          s = h.status();
          break;
        }
        payload += encode_ipc_handle(*h);
      }
      log.add("after_alloc_and_export", rt.sampler().read());
    }
    // A failed exporter still takes part, with no handles, so that the importer is told.
    auto all = rt.exchange().all_gather_world("ipc_handles", payload);
    if (!all.ok()) return all.status();
    if (!exporter) {
      const std::string& wire = (*all)[0];
      const std::size_t one = encode_ipc_handle(IpcHandle{}).size();
      const int count = static_cast<int>(wire.size() / one);
      if (count != most)
        s = Status(StatusCode::kAborted,
                   fmt::format("rank 0 exported {} handles, not {}", count, most));
      std::vector<DevicePtr> opened;
      const Sample before = rt.sampler().read();
      log.add("before_open", before);
      for (int target : kIpcOpenCounts) {
        while (s.ok() && static_cast<int>(opened.size()) < target) {
          auto h = decode_ipc_handle(std::string_view(wire).substr(opened.size() * one, one));
          if (!h.ok()) {
            s = h.status();
            break;
          }
          auto p = rt.device().ipc_open(*h);
          if (!p.ok()) {
            s = p.status();
            break;
          }
          opened.push_back(*p);
        }
        if (!s.ok()) break;
        const Sample now = rt.sampler().read();
        log.add(fmt::format("after_open_{}", target), now);
        entry[fmt::format("taken_after_{}", target)] = bytes_or_null(cuda_taken(before, now));
      }
      for (DevicePtr p : opened) rt.device().ipc_close(p);
      log.add("after_close", rt.sampler().read());
    }
    // Both ranks learn whether the other succeeded, so that they stop together.
    auto verdicts = rt.exchange().all_gather_world("ipc_closed", s.ok() ? "ok" : "failed");
    if (!verdicts.ok()) return verdicts.status();
    for (DevicePtr p : buffers) rt.device().free(p);
    if (exporter) log.add("after_free", rt.sampler().read());
    entry.update(log.to_json());
    sizes.push_back(std::move(entry));
    const bool peer_failed = (*verdicts)[exporter ? 1 : 0] != "ok";
    if (s.ok() && peer_failed) {
      s = Status(StatusCode::kAborted,
                 fmt::format("the {} rank failed at {}", exporter ? "importing" : "exporting",
                             format_bytes(size)));
    }
    if (!s.ok()) break;
  }
  data["sizes"] = std::move(sizes);
  return s.ok() ? rt.device().health() : s;
}

Status measure_nccl(RankRuntime& rt, int index, json& data) {
  const NcclCase c = nccl_cases().at(static_cast<std::size_t>(index));
  data["case"] = c.name;
  data["settings"] = settings_json(c.settings);
  data["second_communicator"] = c.second_communicator;
  data["pcie_emulation"] = c.host_staged;
  auto small = preallocate(rt, kNcclSmallAllReduce);
  if (!small.ok()) return small.status();
  auto large = preallocate(rt, kNcclLargeAllReduce);
  if (!large.ok()) return large.status();
  GPUMEM_RETURN_IF_ERROR(rt.exchange().barrier("nccl_start"));
  SampleLog log;
  log.add("before", rt.sampler().read());
  const std::vector<int> all = world_ranks(rt);
  Status s = Status::ok_status();
  const int communicators = c.second_communicator ? 2 : 1;
  for (int k = 0; k < communicators && s.ok(); ++k) {
    const std::string suffix = k == 0 ? "" : "_second";
    auto id = rt.comm().create_communicator(all, c.settings);
    if (!id.ok()) {
      s = id.status();
      break;
    }
    log.add("after_init" + suffix, rt.sampler().read());
    s = rt.comm().all_reduce_buffer(*id, *small, kNcclSmallAllReduce);
    if (!s.ok()) break;
    log.add("after_first_small_all_reduce" + suffix, rt.sampler().read());
    s = rt.comm().all_reduce_buffer(*id, *large, kNcclLargeAllReduce);
    if (!s.ok()) break;
    log.add("after_first_large_all_reduce" + suffix, rt.sampler().read());
  }
  data["small_all_reduce"] = kNcclSmallAllReduce.value();
  data["large_all_reduce"] = kNcclLargeAllReduce.value();
  data.update(log.to_json());
  return s;
}

Status measure_graph_nccl(RankRuntime& rt, int index, json& data) {
  const NcclCase c = graph_nccl_cases().at(static_cast<std::size_t>(index));
  data["case"] = c.name;
  data["settings"] = settings_json(c.settings);
  data["all_reduce"] = kGraphAllReduce.value();
  auto buffer = preallocate(rt, kGraphAllReduce);
  if (!buffer.ok()) return buffer.status();
  auto id = rt.comm().create_communicator(world_ranks(rt), c.settings);
  if (!id.ok()) return id.status();
  // An eager all-reduce first, so that lazily connected channels exist before the capture
  // and the graph's numbers are the graph's own.
  GPUMEM_RETURN_IF_ERROR(rt.comm().all_reduce_buffer(*id, *buffer, kGraphAllReduce));
  SampleLog log;
  log.add("before", rt.sampler().read());
  Status s = Status::ok_status();
  for (const char* which : {"after_first_graph", "after_second_graph"}) {
    s = rt.device().begin_graph_capture();
    if (s.ok()) s = rt.comm().all_reduce_buffer(*id, *buffer, kGraphAllReduce);
    auto graph = rt.device().end_graph_capture();
    if (s.ok() && !graph.ok()) s = graph.status();
    if (!s.ok()) break;
    log.add(which, rt.sampler().read());
  }
  data.update(log.to_json());
  return s;
}

}  // namespace gpumem::probe
