#include "probe/nccl_comm.h"

#include <fmt/format.h>

#include <cstring>
#include <thread>

#include "probe/cuda_error.h"
#include "probe/deadline.h"
#include "probe/host_collectives.h"
#include "probe/nccl_env.h"

namespace gpumem::probe {
namespace {

constexpr auto kPollPause = std::chrono::microseconds(200);

}  // namespace

NcclComm::NcclComm(HostExchange& exchange, CudaDevice& device, EnvLookup env)
    : exchange_(exchange), device_(device), env_(std::move(env)) {}

NcclComm::~NcclComm() {
  device_.release_graphs();
  for (Communicator& c : comms_) {
    if (c.comm != nullptr) ncclCommAbort(c.comm);
    c.comm = nullptr;
  }
  for (DevicePtr p : graph_buffers_) device_.free(p);
}

Result<int> NcclComm::runtime_version() {
  int v = 0;
  GPUMEM_RETURN_IF_ERROR(check_nccl(ncclGetVersion(&v), "ncclGetVersion"));
  return v;
}

std::string NcclComm::peers_note() const {
  const std::vector<int> closed = exchange_.closed_peers();
  if (closed.empty()) {
    return "; every other rank's process is still alive, so NCCL itself is stuck (its "
           "NCCL_DEBUG=INFO output says where)";
  }
  return fmt::format("; rank(s) {} have exited (their host connections are closed)",
                     join_ranks(closed));
}

Status NcclComm::abort(Communicator& c, Status why) {
  if (c.comm != nullptr) {
    ncclCommAbort(c.comm);
    c.comm = nullptr;
  }
  return why;
}

Status NcclComm::wait_ready(Communicator& c, std::string_view call) {
  const Deadline deadline(device_.timeout());
  while (true) {
    ncclResult_t state = ncclInProgress;
    const ncclResult_t r = ncclCommGetAsyncError(c.comm, &state);
    if (r != ncclSuccess) return abort(c, check_nccl(r, "ncclCommGetAsyncError", c.comm));
    if (state == ncclSuccess) return Status::ok_status();
    if (state != ncclInProgress) {
      return abort(c, check_nccl(state, fmt::format("{} on {}", call, c.name), c.comm));
    }
    if (deadline.expired()) {
      return abort(c, Status(StatusCode::kAborted,
                             fmt::format("rank {}: {} on {} did not finish within {} s{}", rank(),
                                         call, c.name, deadline.timeout_s(), peers_note())));
    }
    std::this_thread::sleep_for(kPollPause);
  }
}

Status NcclComm::wait_stream(Communicator& c, std::string_view what) {
  auto st = device_.stream();
  if (!st.ok()) return st.status();
  const Deadline deadline(device_.timeout());
  while (true) {
    const cudaError_t e = cudaStreamQuery(*st);
    if (e == cudaSuccess) return Status::ok_status();
    if (e != cudaErrorNotReady) {
      return abort(c, check_cuda(e, fmt::format("cudaStreamQuery after {}", what)));
    }
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(c.comm, &state);
    if (r != ncclSuccess) return abort(c, check_nccl(r, "ncclCommGetAsyncError", c.comm));
    if (state != ncclSuccess && state != ncclInProgress) {
      return abort(c, check_nccl(state, what, c.comm));
    }
    if (deadline.expired()) {
      return abort(c, Status(StatusCode::kAborted,
                             fmt::format("rank {}: {} did not complete within {} s{}", rank(), what,
                                         deadline.timeout_s(), peers_note())));
    }
    std::this_thread::sleep_for(kPollPause);
  }
}

Result<NcclComm::Communicator*> NcclComm::find(CommunicatorId id) {
  if (id.index < 0 || id.index >= static_cast<int>(comms_.size())) {
    return invalid_input(fmt::format("communicator {} does not exist", id.index));
  }
  Communicator& c = comms_[id.index];
  if (c.comm == nullptr) {
    return Status(StatusCode::kAborted,
                  fmt::format("{} was aborted after an earlier failure", c.name));
  }
  return &c;
}

Result<CommunicatorId> NcclComm::create_communicator(const std::vector<int>& ranks,
                                                     const NcclSettings& settings) {
  int position = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= world_size() || (i > 0 && ranks[i] <= ranks[i - 1])) {
      return invalid_input(
          fmt::format("create_communicator: ranks [{}] are not strictly "
                      "ascending world ranks below {}",
                      join_ranks(ranks), world_size()));
    }
    if (ranks[i] == rank()) position = static_cast<int>(i);
  }
  if (position < 0) {
    return invalid_input(fmt::format("create_communicator: rank {} is not among ranks [{}]", rank(),
                                     join_ranks(ranks)));
  }
  GPUMEM_RETURN_IF_ERROR(check_nccl_env(settings, env_));
  if (device_.capturing()) return invalid_input("create_communicator during a graph capture");
  GPUMEM_RETURN_IF_ERROR(device_.init_context());

  ncclUniqueId id;
  std::string mine;
  if (position == 0) {
    GPUMEM_RETURN_IF_ERROR(check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId"));
    mine.assign(reinterpret_cast<const char*>(&id), sizeof id);
  }
  auto ids = exchange_.all_gather("nccl_unique_id", ranks, mine);
  if (!ids.ok()) return ids.status();
  if ((*ids)[0].size() != sizeof id) {
    return internal_error(fmt::format("rank {} sent an ncclUniqueId of {} bytes, not {}", ranks[0],
                                      (*ids)[0].size(), sizeof id));
  }
  std::memcpy(&id, (*ids)[0].data(), sizeof id);

  Communicator c;
  c.name = fmt::format("communicator {} over ranks [{}]", comms_.size(), join_ranks(ranks));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const std::string call = fmt::format("ncclCommInitRankConfig(nranks {}, rank {}, non-blocking)",
                                       ranks.size(), position);
  const ncclResult_t r =
      ncclCommInitRankConfig(&c.comm, static_cast<int>(ranks.size()), id, position, &config);
  if (Status s = check_nccl(r, call, c.comm); !s.ok()) return abort(c, s);
  GPUMEM_RETURN_IF_ERROR(wait_ready(c, call));
  comms_.push_back(std::move(c));
  return CommunicatorId{static_cast<int>(comms_.size()) - 1};
}

Status NcclComm::all_reduce_buffer(CommunicatorId id, DevicePtr buffer, Bytes size) {
  auto c = find(id);
  if (!c.ok()) return c.status();
  if (size.value() <= 0 || size.value() % 4 != 0) {
    return invalid_input(
        fmt::format("all_reduce of {}: a float32 all-reduce needs a positive "
                    "multiple of 4 bytes",
                    format_bytes(size)));
  }
  auto st = device_.stream();
  if (!st.ok()) return st.status();
  const std::string what = fmt::format("ncclAllReduce({} float32, sum{}) on {}", format_bytes(size),
                                       device_.capturing() ? ", captured" : "", (*c)->name);
  void* p = reinterpret_cast<void*>(buffer.address);
  const ncclResult_t r = ncclAllReduce(p, p, static_cast<std::size_t>(size.value() / 4),
                                       ncclFloat32, ncclSum, (*c)->comm, *st);
  if (Status s = check_nccl(r, what, (*c)->comm); !s.ok()) return abort(**c, s);
  // A non-blocking communicator may still be enqueueing (and, lazily, connecting).
  GPUMEM_RETURN_IF_ERROR(wait_ready(**c, what));
  if (device_.capturing()) return Status::ok_status();
  return wait_stream(**c, what);
}

Status NcclComm::all_reduce(CommunicatorId id, DevicePtr given, Bytes size) {
  const Bytes rounded = round_up(size, bytes(4));
  if (!given.null()) return all_reduce_buffer(id, given, rounded);
  auto buffer = device_.malloc(rounded, Category::kActivations);
  if (!buffer.ok()) return buffer.status();
  const Status s = all_reduce_buffer(id, *buffer, rounded);
  if (device_.capturing()) {
    graph_buffers_.push_back(*buffer);  // the graph reads and writes it at every replay
  } else {
    device_.free(*buffer);
  }
  return s;
}

Result<Bytes> NcclComm::min_over_world(Bytes local, bool as_float32) {
  const Bytes mine = as_float32 ? through_float32(local) : local;
  auto m = probe::min_over_world(exchange_, "min_over_world_bytes", mine.value());
  if (!m.ok()) return m.status();
  return bytes(*m);
}

Result<std::int64_t> NcclComm::min_over_world(std::int64_t local) {
  return probe::min_over_world(exchange_, "min_over_world_int", local);
}

Result<std::vector<IpcHandle>> NcclComm::all_gather(const std::vector<int>& ranks,
                                                    const IpcHandle& mine) {
  return all_gather_ipc_handles(exchange_, "all_gather_ipc", ranks, mine);
}

Status NcclComm::barrier() { return exchange_.barrier("barrier"); }

Status NcclComm::shutdown() {
  device_.release_graphs();
  for (DevicePtr p : graph_buffers_) device_.free(p);
  graph_buffers_.clear();
  Status first = Status::ok_status();
  for (Communicator& c : comms_) {
    if (c.comm == nullptr) continue;
    Status s = check_nccl(ncclCommFinalize(c.comm), "ncclCommFinalize", c.comm);
    if (s.ok()) s = wait_ready(c, "ncclCommFinalize");
    if (c.comm != nullptr) {
      const Status d = check_nccl(ncclCommDestroy(c.comm), "ncclCommDestroy");
      c.comm = nullptr;
      if (s.ok()) s = d;
    }
    if (first.ok() && !s.ok()) first = s;
  }
  comms_.clear();
  return first;
}

}  // namespace gpumem::probe
