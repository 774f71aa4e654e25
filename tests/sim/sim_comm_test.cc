// SimComm over the NCCL model: what each Comm call charges a simulated H200 (NCCL's default
// settings, so every NCCL allocation is a 2 MiB-granular cuMem one and the numbers do not
// depend on the device's cudaMalloc rounding). Expected numbers are the probe's H200 x2
// measurements (facts nccl.json "default settings, two communicators", graphs.json) and the
// model's arithmetic for captures, in MiB.
#include "sim/sim_comm.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

GpuSpec h200() {
  GpuSpec g;
  g.name = "h200-sxm-141gb";
  g.memory_total = mib(143'771);
  g.cuda_total = mib(143'156);
  g.sm_count = 132;
  g.max_threads_per_sm = 2048;
  return g;
}

SimLinks nvlink_h200() {
  SimLinks links;
  links.interconnect = NcclInterconnect::kNvlink;
  links.compute_capability = 90;
  links.resident_threads = 132 * 2048;
  return links;
}

TEST(SimComm, TwoCommunicatorsAndCapturedAllReduces) {
  SimDevice device(h200(), DeviceConstants{}, bytes(0));
  Rendezvous rendezvous(1);  // one class of identical ranks: rank 0 stands for both
  SimComm comm(0, 2, device, rendezvous, nvlink_h200(), NcclConstants{});
  auto communication = [&] { return device.used_by(Category::kCommunication).value() / kMiB; };

  Result<CommunicatorId> first = comm.create_communicator({0, 1}, NcclSettings{});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(communication(), 388);  // measured at init: 196 tables + 170 image + 22 unlogged
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, kib(4)).ok());
  EXPECT_EQ(communication(), 388 + 474);  // 288 ring buffers + 186 stack
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(64)).ok());
  EXPECT_EQ(communication(), 862);  // nothing more

  Result<CommunicatorId> second = comm.create_communicator({0, 1}, NcclSettings{});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(communication(), 862 + 198);  // measured: 196 tables + 2 unlogged
  ASSERT_TRUE(comm.all_reduce(*second, DevicePtr{}, kib(4)).ok());
  EXPECT_EQ(communication(), 1060 + 288);  // ring buffers, no stack growth

  // Two all-reduces in a first graph: 2 x 64 KiB of graph memory open a 2 MiB step
  // (graphs.json: 2 MiB for the first graph); a second graph stays inside it (0).
  ASSERT_TRUE(device.begin_graph_capture().ok());
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(1)).ok());
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(1)).ok());
  ASSERT_TRUE(device.end_graph_capture().ok());
  EXPECT_EQ(communication(), 1348 + 2);
  ASSERT_TRUE(device.begin_graph_capture().ok());
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(1)).ok());
  ASSERT_TRUE(device.end_graph_capture().ok());
  EXPECT_EQ(communication(), 1350);
  // The 33rd launch on the same communicator crosses into its second step; the other
  // communicator's first captured launch opens a step of its own.
  ASSERT_TRUE(device.begin_graph_capture().ok());
  for (int i = 3; i < 32; ++i) ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(1)).ok());
  EXPECT_EQ(communication(), 1350);
  ASSERT_TRUE(comm.all_reduce(*first, DevicePtr{}, mib(1)).ok());
  EXPECT_EQ(communication(), 1352);
  ASSERT_TRUE(comm.all_reduce(*second, DevicePtr{}, mib(1)).ok());
  EXPECT_EQ(communication(), 1354);
  ASSERT_TRUE(device.end_graph_capture().ok());
}

TEST(SimComm, GraphMemoryThatDoesNotFitIsAnOutOfMemoryNamingNccl) {
  SimDevice device(h200(), DeviceConstants{}, bytes(0));
  Rendezvous rendezvous(1);
  SimComm comm(0, 2, device, rendezvous, nvlink_h200(), NcclConstants{});
  Result<CommunicatorId> id = comm.create_communicator({0, 1}, NcclSettings{});
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(comm.all_reduce(*id, DevicePtr{}, kib(4)).ok());
  // Leave 1 MiB free: the first captured launch needs a 2 MiB step.
  const Bytes free = device.total() - device.used();
  ASSERT_TRUE(device.charge_driver(free - mib(1), Category::kOther, "filler").ok());
  ASSERT_TRUE(device.begin_graph_capture().ok());
  const Status s = comm.all_reduce(*id, DevicePtr{}, mib(1));
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(s.message(),
            "NCCL captured launch graph memory: 1 x 2,097,152 B (driver) needs 2.00 MiB, "
            "1.00 MiB free");
}

}  // namespace
}  // namespace gpumem
