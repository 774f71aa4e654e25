#include "opstrace/recording_comm.h"

#include "probe/nccl_env.h"

namespace gpumem {

using nlohmann::json;

RecordingComm::RecordingComm(Comm& inner, OpsRecorder& recorder, const NcclSettings& environment)
    : inner_(inner), recorder_(recorder), environment_(environment) {}

Result<CommunicatorId> RecordingComm::create_communicator(const std::vector<int>& ranks,
                                                          const NcclSettings& settings) {
  Result<std::vector<probe::NcclEnvExpectation>> asked = probe::nccl_env_expectations(settings);
  Result<std::vector<probe::NcclEnvExpectation>> have = probe::nccl_env_expectations(environment_);
  if (!asked.ok()) return asked.status();
  if (!have.ok()) return have.status();
  if (*asked != *have) {
    return invalid_input(
        "ops trace: a communicator asks for other NCCL settings than the process's "
        "environment, which the trace carries once");
  }
  Result<CommunicatorId> c = inner_.create_communicator(ranks, settings);
  recorder_.record(json::array({"comm_create", c.ok() ? c->index : -1, ranks}));
  return c;
}

Status RecordingComm::all_reduce(CommunicatorId comm, DevicePtr buffer, Bytes size) {
  Result<json> what = recorder_.buffer(buffer);
  if (!what.ok()) return what.status();
  recorder_.record(json::array({"all_reduce", comm.index, *what, size.value()}));
  return inner_.all_reduce(comm, buffer, size);
}

Result<Bytes> RecordingComm::min_over_world(Bytes local, bool as_float32) {
  recorder_.record(json::array({"host_min"}));
  return inner_.min_over_world(local, as_float32);
}

Result<std::int64_t> RecordingComm::min_over_world(std::int64_t local) {
  recorder_.record(json::array({"host_min"}));
  return inner_.min_over_world(local);
}

Result<std::vector<IpcHandle>> RecordingComm::all_gather(const std::vector<int>& ranks,
                                                         const IpcHandle& mine) {
  recorder_.record(json::array({"host_all_gather", ranks}));
  return inner_.all_gather(ranks, mine);
}

Status RecordingComm::barrier() {
  recorder_.record(json::array({"host_barrier"}));
  return inner_.barrier();
}

}  // namespace gpumem
