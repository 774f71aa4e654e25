// Per-rank device bytes of NCCL communicators, composed by hand from the NCCL 2.28 rules
// (each test says how) and checked with python3 arithmetic, not read off the code.
//
// Shorthands used in the comments, with default settings:
//   R = align(4 KiB header + 512 KiB LL + 4,915,200 LL128 + 4 MiB SIMPLE, 2 MiB) = 10 MiB
//   S = align(4 KiB header, 2 MiB) = 2 MiB
//   T = the three per-channel tables of initChannel; with cuMem each rounds to a 2 MiB granule
//   D = devCommSetup's two allocations (device comm 23,648 B, rank table 4 B per rank)
//   O = init memory NCCL logs no allocation for: 2 MiB per communicator, plus 18 MiB and the
//       context's 2 MiB first module load for the first one of a process (22 MiB in all)
// NVLink (H100/H200, sm_90): 12 search channels -> 24 channels, 32 p2p channels.
// PCIe (RTX PRO 6000, sm_120): 1 search channel -> 2 channels, 2 p2p channels.
// SHM: 2 search channels -> 4 channels, 4 p2p channels.
#include <gtest/gtest.h>

#include "nccl/nccl_graph_capture.h"
#include "nccl/nccl_plan.h"

namespace gpumem {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

NcclCommInput nvlink(int nranks, int position) {
  NcclCommInput input;
  input.nranks = nranks;
  input.position = position;
  input.interconnect = NcclInterconnect::kNvlink;
  input.compute_capability = 90;
  input.resident_threads = 132 * 2048;  // H200
  return input;
}

NcclCommInput pcie(int nranks, int position, bool peer_to_peer) {
  NcclCommInput input;
  input.nranks = nranks;
  input.position = position;
  input.interconnect =
      peer_to_peer ? NcclInterconnect::kPciePeerToPeer : NcclInterconnect::kPcieNoPeerToPeer;
  input.compute_capability = 120;
  input.resident_threads = 188 * 1536;  // RTX PRO 6000 Blackwell
  return input;
}

NcclPlan plan_ok(const NcclCommInput& input, const NcclConstants& k = NcclConstants{}) {
  Result<NcclPlan> plan = plan_communicator(input, k);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : NcclPlan{};
}

std::string plan_error(const NcclCommInput& input) {
  Result<NcclPlan> plan = plan_communicator(input);
  EXPECT_FALSE(plan.ok());
  return plan.status().message();
}

std::int64_t init(const NcclPlan& p) { return p.device_bytes(NcclPhase::kInit).value(); }
std::int64_t ring(const NcclPlan& p) {
  return p.device_bytes(NcclPhase::kFirstRingCollective).value();
}
std::int64_t tree(const NcclPlan& p) {
  return p.device_bytes(NcclPhase::kFirstTreeCollective).value();
}

// ---------------------------------------------------------------- NVLink, default settings

TEST(NcclModel, NvlinkTwoRanksDefaultIsLazyWithCuMem) {
  const NcclPlan p = plan_ok(nvlink(2, 0));
  EXPECT_EQ(p.topology.search_channels, 12);
  EXPECT_EQ(p.topology.channels, 24);
  EXPECT_EQ(p.topology.p2p_channels, 32);  // next power of two of 24
  EXPECT_EQ(p.topology.transport, NcclTransport::kP2p);
  EXPECT_FALSE(p.topology.p2p_read);
  EXPECT_TRUE(p.cumem);
  EXPECT_TRUE(p.runtime_connect);
  EXPECT_EQ(p.recv_connection.value(), 10 * kMiB);
  EXPECT_EQ(p.send_connection.value(), 2 * kMiB);
  EXPECT_EQ(p.p2p_chunk.value(), 524'288);
  // init: 32 channels x T (3 x 2 MiB) + D (2 x 2 MiB) = 196 MiB
  EXPECT_EQ(init(p), 205'520'896);
  // first ring collective: 24 channels x (R + S) = 24 x 12 MiB = 288 MiB
  EXPECT_EQ(ring(p), 301'989'888);
  // two ranks: the tree's peers are the ring's peers, nothing new
  EXPECT_EQ(tree(p), 0);
  // context: 170 MiB at init (kernel image); round_up(720 B x 270,336 threads, 2 MiB) = 186 MiB
  // of stack at the first collective
  EXPECT_EQ(p.kernel_image.value(), 178'257'920);
  EXPECT_EQ(p.launch_stack_growth.value(), 195'035'136);
  EXPECT_EQ(p.init_overhead.value(), 22 * kMiB);  // O, first communicator of the process
}

TEST(NcclModel, NvlinkFourRanksTreeDependsOnChainPosition) {
  // init and ring as for two ranks: 196 MiB and 24 x (R + S) = 288 MiB.
  const NcclPlan head = plan_ok(nvlink(4, 0));
  EXPECT_EQ(init(head), 205'520'896);
  EXPECT_EQ(ring(head), 301'989'888);
  // chain head: one more recv per channel (from position 1): 24 x R = 240 MiB
  EXPECT_EQ(tree(head), 251'658'240);
  // middle: recv from next + send to previous: 24 x (R + S) = 288 MiB
  EXPECT_EQ(tree(plan_ok(nvlink(4, 1))), 301'989'888);
  EXPECT_EQ(tree(plan_ok(nvlink(4, 2))), 301'989'888);
  // chain tail: one more send per channel (to position 2): 24 x S = 48 MiB
  EXPECT_EQ(tree(plan_ok(nvlink(4, 3))), 50'331'648);
}

TEST(NcclModel, NvlinkEightRanksMiddleRankTotal) {
  const NcclPlan p = plan_ok(nvlink(8, 3));
  // 196 MiB init + 288 MiB ring + 288 MiB tree = 772 MiB
  EXPECT_EQ(init(p), 205'520'896);
  EXPECT_EQ(ring(p), 301'989'888);
  EXPECT_EQ(tree(p), 301'989'888);
  EXPECT_EQ(p.device_bytes().value(), 809'500'672);
}

// ----------------------------------------------------------------------- eager connection

TEST(NcclModel, NvlinkEightRanksCuMemOffConnectsEverythingAtInit) {
  NcclCommInput input = nvlink(8, 3);
  input.settings.cumem_enable = false;
  const NcclPlan p = plan_ok(input);
  EXPECT_FALSE(p.runtime_connect);  // runtimeConn needs cuMem, whatever RUNTIME_CONNECT says
  // cudaMalloc requests, unrounded:
  //   tables: 32 channels x (8 x 608 + 17 x 8 + 8 x 4) = 161,024
  //   ring 24 x (R + S) = 301,989,888; tree (middle) 24 x (R + S) = 301,989,888
  //   local net proxy: 32 p2p channels x 16 steps x 512 KiB = 268,435,456
  //   D: 23,648 + 8 x 4 = 23,680
  EXPECT_EQ(init(p), 872'599'936);
  EXPECT_EQ(ring(p), 0);
  EXPECT_EQ(tree(p), 0);
  for (const NcclAllocation& a : p.allocations) {
    EXPECT_EQ(a.allocator, NcclAllocator::kCudaMalloc) << describe(a);
    EXPECT_EQ(a.charged, a.request) << describe(a);
  }
}

TEST(NcclModel, NvlinkEightRanksRuntimeConnectOffWithCuMem) {
  NcclCommInput input = nvlink(8, 3);
  input.settings.runtime_connect = false;
  const NcclPlan p = plan_ok(input);
  EXPECT_TRUE(p.cumem);
  EXPECT_FALSE(p.runtime_connect);
  // 32 x T (192 MiB) + ring 288 MiB + tree 288 MiB + net proxy 256 MiB + D (4 MiB) = 1028 MiB
  EXPECT_EQ(init(p), 1'077'936'128);
  EXPECT_EQ(ring(p) + tree(p), 0);
}

TEST(NcclModel, RuntimeConnectOnWithoutCuMemStillEager) {
  NcclCommInput input = nvlink(2, 0);
  input.settings.cumem_enable = false;
  input.settings.runtime_connect = true;
  EXPECT_FALSE(plan_ok(input).runtime_connect);
}

// ------------------------------------------------------------------------ NCCL_BUFFSIZE

TEST(NcclModel, BuffsizeOneMiB) {
  NcclCommInput input = nvlink(2, 1);
  input.settings.buffsize = mib(1);
  NcclPlan p = plan_ok(input);
  // R = align(4 KiB + 512 KiB + 4,915,200 + 1 MiB, 2 MiB) = 8 MiB
  EXPECT_EQ(p.recv_connection.value(), 8 * kMiB);
  // ring: 24 x (8 MiB + 2 MiB) = 240 MiB
  EXPECT_EQ(ring(p), 251'658'240);
  // the p2p chunk shrinks to SIMPLE / 8 steps = 128 KiB
  EXPECT_EQ(p.p2p_chunk.value(), 131'072);

  input.settings.cumem_enable = false;
  p = plan_ok(input);
  // eager: tables 32 x (2 x 608 + 5 x 8 + 2 x 4) = 40,448 + ring 240 MiB
  //        + net proxy 32 x 16 x 128 KiB = 64 MiB + D 23,648 + 8 = 23,656
  EXPECT_EQ(init(p), 40'448 + 251'658'240 + 67'108'864 + 23'656);
}

TEST(NcclModel, BuffsizeEightMiB) {
  NcclCommInput input = nvlink(4, 1);
  input.settings.buffsize = mib(8);
  const NcclPlan p = plan_ok(input);
  // R = align(4 KiB + 512 KiB + 4,915,200 + 8 MiB, 2 MiB) = 14 MiB; ring 24 x (14 + 2) MiB
  EXPECT_EQ(p.recv_connection.value(), 14 * kMiB);
  EXPECT_EQ(ring(p), 402'653'184);
  EXPECT_EQ(tree(p), 402'653'184);          // middle rank: the same pair again
  EXPECT_EQ(p.p2p_chunk.value(), 524'288);  // 8 MiB / 8 does not cap 512 KiB
}

TEST(NcclModel, ProtocolBuffsizesAddUp) {
  NcclCommInput input = nvlink(2, 0);
  input.settings.ll_buffsize = kib(256);
  input.settings.ll128_buffsize = bytes(1'966'080);
  // R = align(4 KiB + 256 KiB + 1,966,080 + 4 MiB, 2 MiB) = 8 MiB (6,426,624 B before)
  EXPECT_EQ(plan_ok(input).recv_connection.value(), 8 * kMiB);
}

// ---------------------------------------------------------------------- channel overrides

TEST(NcclModel, MinMaxChannelsTwo) {
  NcclCommInput input = nvlink(8, 3);
  input.settings.min_channels = 2;
  input.settings.max_channels = 2;
  const NcclPlan p = plan_ok(input);
  EXPECT_EQ(p.topology.channels, 2);
  EXPECT_EQ(p.topology.p2p_channels, 2);
  // init 2 x T + D = 16 MiB; ring 2 x (R + S) = 24 MiB; tree (middle) 24 MiB
  EXPECT_EQ(init(p), 16'777'216);
  EXPECT_EQ(ring(p), 25'165'824);
  EXPECT_EQ(tree(p), 25'165'824);
}

TEST(NcclModel, MinMaxChannelsEight) {
  NcclCommInput input = nvlink(8, 0);
  input.settings.min_channels = 8;
  input.settings.max_channels = 8;
  const NcclPlan p = plan_ok(input);
  EXPECT_EQ(p.topology.channels, 8);
  EXPECT_EQ(p.topology.p2p_channels, 8);
  // init 8 x T + D = 52 MiB; ring 8 x (R + S) = 96 MiB; tree (head) 8 x R = 80 MiB
  EXPECT_EQ(init(p), 54'525'952);
  EXPECT_EQ(ring(p), 100'663'296);
  EXPECT_EQ(tree(p), 83'886'080);
}

TEST(NcclModel, ChannelBoundsFollowNccl) {
  NcclCommInput input = nvlink(2, 0);
  input.settings.max_channels = 8;  // caps the 24
  EXPECT_EQ(plan_ok(input).topology.channels, 8);
  input.settings.max_channels = 0;  // NCCL raises a maximum below 1 to 1
  EXPECT_EQ(plan_ok(input).topology.channels, 1);
  input.settings.max_channels.reset();
  input.settings.min_channels = 100;  // and caps a minimum at MAXCHANNELS
  EXPECT_EQ(plan_ok(input).topology.channels, 64);
  EXPECT_EQ(plan_ok(input).topology.p2p_channels, 64);
  // PCIe: NCCL_MIN_NCHANNELS=8 copies the 2 channels up to 8
  NcclCommInput rig = pcie(8, 1, true);
  rig.settings.min_channels = 8;
  const NcclPlan p = plan_ok(rig);
  EXPECT_EQ(p.topology.channels, 8);
  EXPECT_EQ(p.topology.p2p_channels, 8);
  EXPECT_EQ(ring(p), 8 * 12 * kMiB);
}

// ------------------------------------------------------------------------ PCIe, P2P on

TEST(NcclModel, PcieP2pRtxPro6000) {
  for (int nranks : {2, 4, 8}) {
    const NcclPlan p = plan_ok(pcie(nranks, 1, true));
    EXPECT_EQ(p.topology.channels, 2);
    EXPECT_EQ(p.topology.p2p_channels, 2);
    EXPECT_EQ(p.topology.transport, NcclTransport::kP2p);
    EXPECT_FALSE(p.topology.all_nvlink);
    EXPECT_EQ(p.p2p_chunk.value(), 131'072);
    // init: 2 x T + D = 16 MiB; ring: 2 x (R + S) = 24 MiB
    EXPECT_EQ(init(p), 16'777'216) << nranks;
    EXPECT_EQ(ring(p), 25'165'824) << nranks;
    // position 1: the tail of two ranks (no new peers), a middle rank otherwise: 2 x (R + S)
    EXPECT_EQ(tree(p), nranks == 2 ? 0 : 25'165'824) << nranks;
    EXPECT_EQ(p.kernel_image.value(), 85'944'300);  // sm_120 cubins
    // round_up(720 B x 288,768 threads, 2 MiB) = 100 x 2 MiB
    EXPECT_EQ(p.launch_stack_growth.value(), 209'715'200);
  }
}

TEST(NcclModel, PcieP2pEightRanksEager) {
  NcclCommInput input = pcie(8, 1, true);
  input.settings.cumem_enable = false;
  const NcclPlan p = plan_ok(input);
  // tables 2 x (8 x 608 + 17 x 8 + 8 x 4) = 10,064 + ring 24 MiB + tree 24 MiB
  // + net proxy 2 x 16 x 128 KiB = 4 MiB + D 23,680
  EXPECT_EQ(init(p), 54'559'696);
}

// --------------------------------------------------------------- PCIe without P2P (SHM)

TEST(NcclModel, PcieWithoutP2pKeepsBuffersOnTheHost) {
  for (int nranks : {2, 4, 8}) {
    const NcclPlan p = plan_ok(pcie(nranks, 1, false));
    EXPECT_EQ(p.topology.transport, NcclTransport::kShm);
    EXPECT_EQ(p.topology.link, NcclLinkClass::kShm);
    EXPECT_EQ(p.topology.channels, 4);
    EXPECT_EQ(p.topology.p2p_channels, 4);
    EXPECT_EQ(p.recv_connection.value(), 0);
    // only 4 x T + D = 28 MiB of metadata on the GPU
    EXPECT_EQ(init(p), 29'360'128) << nranks;
    EXPECT_EQ(ring(p) + tree(p), 0) << nranks;
  }
  NcclCommInput eager = pcie(8, 1, false);
  eager.settings.cumem_enable = false;
  // tables 4 x 5,032 + net proxy 4 x 16 x 128 KiB (PCI chunk) + D 23,680; no connections
  EXPECT_EQ(init(plan_ok(eager)), 20'128 + 8'388'608 + 23'680);
}

TEST(NcclModel, P2pDisableTurnsEvenNvlinkIntoShm) {
  NcclCommInput input = nvlink(8, 3);
  input.settings.p2p_disable = true;
  const NcclPlan p = plan_ok(input);
  EXPECT_EQ(p.topology.transport, NcclTransport::kShm);
  EXPECT_FALSE(p.topology.all_nvlink);  // routed through the CPU now
  EXPECT_EQ(p.topology.channels, 4);
  EXPECT_EQ(p.p2p_chunk.value(), 131'072);
  EXPECT_EQ(init(p), 29'360'128);  // 4 x T + D
  EXPECT_EQ(ring(p) + tree(p), 0);
}

TEST(NcclModel, P2pLevelAgainstPciePath) {
  NcclCommInput input = pcie(4, 1, false);
  input.pcie_path = NcclPciePath::kPhb;
  input.settings.p2p_level = "SYS";  // PHB <= SYS: P2P
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kP2p);
  EXPECT_EQ(ring(plan_ok(input)), 25'165'824);
  input.settings.p2p_level = "PXB";  // PHB > PXB: SHM
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kShm);
  input.settings.p2p_level = "3";  // legacy digit 3 = PHB
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kP2p);
  input.settings.p2p_level = "2";  // legacy digit 2 = PXB
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kShm);
  NcclCommInput nv = nvlink(2, 0);
  nv.settings.p2p_level = "LOC";  // NVLink pairs do not pass LOC either
  EXPECT_EQ(plan_ok(nv).topology.transport, NcclTransport::kShm);
  nv.settings.p2p_level = "NVL";
  EXPECT_EQ(plan_ok(nv).topology.transport, NcclTransport::kP2p);
}

TEST(NcclModel, P2pLevelErrors) {
  NcclCommInput input = pcie(4, 1, true);
  input.settings.p2p_level = "SYS";
  EXPECT_EQ(plan_error(input),
            "NCCL_P2P_LEVEL=SYS on a PCIe box needs the PCIe path between the GPUs (PIX, PXB, "
            "PHB or SYS) to decide between P2P and SHM");
  input.settings.p2p_level = "NVL";  // below every PCIe path: SHM, no path needed
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kShm);
  input.settings.p2p_level.reset();
  input.settings.p2p_disable = true;
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kShm);
  input.settings.p2p_disable = false;  // NCCL_P2P_DISABLE=0 changes nothing
  EXPECT_EQ(plan_ok(input).topology.transport, NcclTransport::kP2p);
  input.pcie_path = NcclPciePath::kPxb;
  input.settings.p2p_level = "SIS";
  EXPECT_EQ(plan_error(input),
            "NCCL_P2P_LEVEL 'SIS' is not a P2P level (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, "
            "PHB, SYS or 0..5); did you mean 'SYS'?");
  input.settings.p2p_level = "phb";  // NCCL compares names case-sensitively
  EXPECT_EQ(plan_error(input),
            "NCCL_P2P_LEVEL 'phb' is not a P2P level (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, "
            "PHB, SYS or 0..5); did you mean 'PHB'?");
  EXPECT_EQ(*parse_p2p_level("9"), NcclPathType::kSys);   // above 5 counts as 5
  EXPECT_EQ(*parse_p2p_level("1x"), NcclPathType::kPix);  // strtol stops at the 'x'
}

// ------------------------------------------------------------------ P2P read, one rank

TEST(NcclModel, AmpereNvlinkUsesP2pRead) {
  NcclCommInput input = nvlink(2, 0);
  input.compute_capability = 80;
  const NcclPlan p = plan_ok(input);
  EXPECT_TRUE(p.topology.p2p_read);
  // recv: align(4 KiB + 512 KiB + 4,915,200, 2 MiB) = 6 MiB; send: align(4 KiB + 4 MiB) = 6 MiB
  EXPECT_EQ(p.recv_connection.value(), 6 * kMiB);
  EXPECT_EQ(p.send_connection.value(), 6 * kMiB);
  EXPECT_EQ(ring(p), 24 * 12 * kMiB);
  EXPECT_EQ(p.kernel_image.value(), 46'264'410);  // sm_80 cubins
}

TEST(NcclModel, SingleRankCommunicator) {
  NcclCommInput input = nvlink(1, 0);
  NcclPlan p = plan_ok(input);
  EXPECT_EQ(p.topology.channels, 64);
  EXPECT_EQ(p.topology.p2p_channels, 64);
  // lazy: 64 x T + D = 388 MiB, no connections ever
  EXPECT_EQ(init(p), 406'847'488);
  EXPECT_EQ(ring(p) + tree(p), 0);
  input.settings.cumem_enable = false;
  p = plan_ok(input);
  // eager: tables 64 x (608 + 3 x 8 + 4) = 40,704, net proxy 64 x 16 x 512 KiB = 512 MiB
  // (the 536,870,912 B "Cuda Alloc" of the public 2.28.9 report), D 23,648 + 4
  EXPECT_EQ(init(p), 40'704 + 536'870'912 + 23'652);
}

// ------------------------------------------------------------------------ kernel image

TEST(NcclModel, KernelImageOnlyForFirstCommunicator) {
  NcclCommInput input = nvlink(2, 0);
  input.first_in_process = false;
  input.first_launch_in_process = false;
  input.resident_threads = 0;  // not needed once the process has run NCCL kernels
  EXPECT_EQ(plan_ok(input).kernel_image.value(), 0);
  EXPECT_EQ(plan_ok(input).launch_stack_growth.value(), 0);
  input.first_launch_in_process = true;
  EXPECT_EQ(plan_error(input),
            "the first NCCL kernel launch of a process needs the GPU's resident threads (SMs x "
            "max threads per SM) to size its stack, got 0");
  input.resident_threads = 84 * 1536;  // an sm_86 board
  // round_up(720 x 129,024 = 92,897,280, 2 MiB) = 45 x 2 MiB
  EXPECT_EQ(plan_ok(input).launch_stack_growth.value(), 94'371'840);
  EXPECT_EQ(plan_ok(input).kernel_image.value(), 0);
  input.first_in_process = true;
  input.compute_capability = 86;  // runs the sm_80 cubin
  EXPECT_EQ(plan_ok(input).kernel_image.value(), 46'264'410);
  input.compute_capability = 121;  // runs the sm_120 cubin
  EXPECT_EQ(plan_ok(input).kernel_image.value(), 85'944'300);
  input.compute_capability = 70;
  EXPECT_EQ(plan_error(input), "libnccl has no kernel image for compute capability 7.0");
  // a one-rank communicator loads the image but launches nothing
  NcclCommInput single = nvlink(1, 0);
  single.resident_threads = 0;
  EXPECT_EQ(plan_ok(single).kernel_image.value(), 178'257'920);
  EXPECT_EQ(plan_ok(single).launch_stack_growth.value(), 0);
}

// ----------------------------------------------------------------- records and errors

TEST(NcclModel, AllocationRecordsInNcclOrder) {
  const NcclPlan p = plan_ok(nvlink(4, 0));
  ASSERT_EQ(p.allocations.size(), 11u);
  EXPECT_EQ(describe(p.allocations[0]), "shared peer tables ch 24..31: 8 x 2,097,152 B (cuMem)");
  EXPECT_EQ(p.allocations[0].request.value(), 4 * 608);
  EXPECT_EQ(describe(p.allocations[1]), "peer pointer tables ch 24..31: 8 x 2,097,152 B (cuMem)");
  EXPECT_EQ(p.allocations[1].request.value(), 9 * 8);
  EXPECT_EQ(describe(p.allocations[2]), "ring user ranks ch 24..31: 8 x 2,097,152 B (cuMem)");
  EXPECT_EQ(describe(p.allocations[3]), "shared peer tables ch 0..23: 24 x 2,097,152 B (cuMem)");
  EXPECT_EQ(describe(p.allocations[6]), "ring recv buffers ch 0..23: 24 x 10,485,760 B (cuMem)");
  EXPECT_EQ(p.allocations[6].phase, NcclPhase::kFirstRingCollective);
  EXPECT_EQ(describe(p.allocations[7]), "ring send buffers ch 0..23: 24 x 2,097,152 B (cuMem)");
  EXPECT_EQ(describe(p.allocations[8]), "tree recv buffers ch 0..23: 24 x 10,485,760 B (cuMem)");
  EXPECT_EQ(p.allocations[8].phase, NcclPhase::kFirstTreeCollective);
  EXPECT_EQ(describe(p.allocations[9]), "device comm and channels: 1 x 2,097,152 B (cuMem)");
  EXPECT_EQ(describe(p.allocations[10]), "rank to local rank table: 1 x 2,097,152 B (cuMem)");

  NcclCommInput eager = nvlink(2, 0);
  eager.settings.cumem_enable = false;
  const NcclPlan e = plan_ok(eager);
  // the legacy IPC check first; same tables, ring and D; no tree with two ranks; the net
  // proxy buffer before D
  ASSERT_EQ(e.allocations.size(), 12u);
  EXPECT_EQ(describe(e.allocations[0]),
            "legacy IPC check buffer: 1 x 2,097,152 B (cudaMalloc, freed at once)");
  EXPECT_EQ(describe(e.allocations[9]),
            "local net proxy shared buffer: 1 x 268,435,456 B (cudaMalloc)");
}

TEST(NcclModel, LegacyIpcCheckOnlyOncePerProcessWithoutCuMem) {
  NcclCommInput input = nvlink(2, 1);
  input.settings.cumem_enable = false;
  NcclPlan p = plan_ok(input);
  ASSERT_EQ(p.allocations[0].kind, NcclAllocationKind::kLegacyIpcCheck);
  EXPECT_TRUE(p.allocations[0].transient);
  EXPECT_EQ(p.allocations[0].total().value(), 0);  // freed at once: peak only
  // tables 32 x (2 x 608 + 5 x 8 + 2 x 4) = 40,448 + ring 24 x 12 MiB + net proxy 256 MiB
  // + D 23,656: the 2 MiB check adds nothing that stays
  EXPECT_EQ(init(p), 40'448 + 301'989'888 + 268'435'456 + 23'656);
  input.first_in_process = false;  // p2pCanConnect caches the answer in a static
  EXPECT_NE(plan_ok(input).allocations[0].kind, NcclAllocationKind::kLegacyIpcCheck);
  input.first_in_process = true;
  input.settings.p2p_disable = true;  // no P2P, no check
  EXPECT_NE(plan_ok(input).allocations[0].kind, NcclAllocationKind::kLegacyIpcCheck);
  input.settings.p2p_disable.reset();
  input.settings.cumem_enable = true;  // with cuMem the check is skipped
  EXPECT_NE(plan_ok(input).allocations[0].kind, NcclAllocationKind::kLegacyIpcCheck);
  NcclCommInput single = nvlink(1, 0);  // no peer to connect to
  single.settings.cumem_enable = false;
  EXPECT_NE(plan_ok(single).allocations[0].kind, NcclAllocationKind::kLegacyIpcCheck);
}

TEST(NcclModel, InitOverheadPerCommunicatorAndPerProcess) {
  NcclCommInput input = nvlink(2, 0);
  EXPECT_EQ(plan_ok(input).init_overhead.value(), 22 * kMiB);  // 2 + 18 + 2
  input.context_has_modules = true;  // a kernel ran before: no first module load
  EXPECT_EQ(plan_ok(input).init_overhead.value(), 20 * kMiB);
  input.first_in_process = false;  // a later communicator
  input.first_launch_in_process = false;
  EXPECT_EQ(plan_ok(input).init_overhead.value(), 2 * kMiB);
  input.context_has_modules = false;  // only the first communicator loads a module
  EXPECT_EQ(plan_ok(input).init_overhead.value(), 2 * kMiB);
}

TEST(NcclModel, InvalidInputs) {
  EXPECT_EQ(plan_error(nvlink(0, 0)), "an NCCL communicator needs at least 1 rank, got 0");
  EXPECT_EQ(plan_error(nvlink(4, 4)), "rank position 4 is outside 0..3");
  NcclCommInput input = nvlink(2, 0);
  input.settings.nvls_enable = true;
  EXPECT_EQ(plan_error(input),
            "NCCL_NVLS_ENABLE=1 is not modelled: gpumem runs NCCL with NVLS off");
  input.settings.nvls_enable = false;
  input.settings.buffsize = bytes(0);
  EXPECT_EQ(plan_error(input), "NCCL_BUFFSIZE must be positive, got 0 B");
}

TEST(NcclModel, CalibratedChannelRulesReplaceDefaults) {
  NcclConstants k;
  k.channel_rules[0] = {NcclLinkClass::kNvlink, 90, 99, 8};  // say the probe saw 16 on H200
  const NcclPlan p = plan_ok(nvlink(2, 0), k);
  EXPECT_EQ(p.topology.channels, 16);
  EXPECT_EQ(p.topology.p2p_channels, 16);
  // init 16 x T + D = 100 MiB; ring 16 x 12 MiB = 192 MiB
  EXPECT_EQ(init(p), 104'857'600);
  EXPECT_EQ(ring(p), 201'326'592);
  k.channel_rule_count = 0;
  NcclCommInput input = nvlink(2, 0);
  Result<NcclPlan> missing = plan_communicator(input, k);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "no NCCL channel rule for NVLink links on compute capability 90");
}

// ------------------------------------------------------------------------ graph capture

// Registration and persistent work only; the graph memory every launch adds is tested apart.
NcclCapturedAllReduce after_first_step() {
  NcclCapturedAllReduce capture;
  capture.launches_before = 1;  // one launch captured before: 64 KiB of the first 2 MiB step
  return capture;
}

TEST(NcclGraphCapture, OneInPlaceAllReduceAddsOnlyGraphMemory) {
  const NcclPlan p = plan_ok(nvlink(8, 3));
  Result<NcclAllocationList> extra = plan_graph_capture(p, NcclCapturedAllReduce{});
  ASSERT_TRUE(extra.ok());
  // 32 + 24 x 16 + 112 = 528 B fit in the 4 KiB kernel args: no persistent work; the launch's
  // 64 KiB of graph memory opens the communicator's first 2 MiB step
  ASSERT_EQ(extra->size(), 1u);
  EXPECT_EQ(describe((*extra)[0]), "captured launch graph memory: 1 x 2,097,152 B (driver)");
  EXPECT_EQ((*extra)[0].request.value(), 65'536);
  EXPECT_EQ(extra->total(NcclPhase::kGraphCapture).value(), 2 * kMiB);
  EXPECT_TRUE(plan_graph_capture(p, after_first_step())->empty());
}

TEST(NcclGraphCapture, CapturedLaunchesGrowGraphMemoryInSteps) {
  const NcclPlan p = plan_ok(nvlink(2, 0));
  // The probe's SGLang Llama-3.1-8B TP 2 run without custom all-reduce: 36 graphs x 64
  // all-reduces captured one by one: round_up(2,304 x 64 KiB, 2 MiB) = 72 steps = 144 MiB.
  std::int64_t taken = 0;
  int steps = 0;
  NcclCapturedAllReduce capture;
  for (int i = 0; i < 36 * 64; ++i) {
    capture.launches_before = i;
    Result<NcclAllocationList> extra = plan_graph_capture(p, capture);
    ASSERT_TRUE(extra.ok());
    if (!extra->empty()) ++steps;
    taken += extra->total().value();
  }
  EXPECT_EQ(steps, 72);  // a new step every 32 launches
  EXPECT_EQ(taken, 144 * kMiB);
  // all of them in one call: the same 144 MiB
  capture.launches = 36 * 64;
  capture.launches_before = 0;
  EXPECT_EQ(plan_graph_capture(p, capture)->total().value(), 144 * kMiB);
  // 31 before, 2 more: 33 x 64 KiB crosses into the second step
  capture.launches = 2;
  capture.launches_before = 31;
  EXPECT_EQ(plan_graph_capture(p, capture)->total().value(), 2 * kMiB);
}

TEST(NcclGraphCapture, FusedLaunchOverflowingKernelArgsGetsPersistentWork) {
  const NcclPlan p = plan_ok(nvlink(8, 3));
  NcclCapturedAllReduce capture;
  capture.launches = 3;
  capture.per_launch = 32;  // 32 + 24 x 16 + 32 x 112 = 4,000 B: still fits
  Result<NcclAllocationList> extra = plan_graph_capture(p, capture);
  ASSERT_EQ(extra->size(), 1u);  // graph memory only
  EXPECT_EQ((*extra)[0].kind, NcclAllocationKind::kCapturedLaunchGraph);
  capture.per_launch = 40;  // 32 + 24 x 16 + 40 x 112 = 4,896 B: persistent
  extra = plan_graph_capture(p, capture);
  ASSERT_EQ(extra->size(), 2u);
  // 3 launches x 40 x 112 B = 13,440 B from the pool, which maps one 2 MiB step; the
  // 3 x 64 KiB of graph memory take the first 2 MiB step of their own
  EXPECT_EQ((*extra)[1].request.value(), 13'440);
  EXPECT_EQ(describe((*extra)[1]), "persistent work buffers: 1 x 2,097,152 B (memory pool)");
  EXPECT_EQ(extra->total(NcclPhase::kGraphCapture).value(), 4 * kMiB);
}

TEST(NcclGraphCapture, PersistentWorkPoolGrowsInSteps) {
  const NcclPlan p = plan_ok(nvlink(8, 3));
  NcclCapturedAllReduce capture;
  capture.launches = 3;
  capture.per_launch = 40;
  capture.launches_before = 3;  // 26,880 B of work, 384 KiB of graph memory: first steps
  EXPECT_TRUE(plan_graph_capture(p, capture)->empty());
  // 468 launches of 4,480 B before: 2,096,640 B; 3 more cross into the second pool step,
  // while graph memory goes from 468 to 471 x 64 KiB (29.25 to 29.44 MiB), inside its
  // fifteenth step
  capture.launches_before = 468;
  Result<NcclAllocationList> extra = plan_graph_capture(p, capture);
  ASSERT_EQ(extra->size(), 1u);
  EXPECT_EQ((*extra)[0].kind, NcclAllocationKind::kPersistentWork);
  EXPECT_EQ(extra->total().value(), 2 * kMiB);
}

TEST(NcclGraphCapture, OutOfPlaceSimpleWithCuMemBuffersRegisters) {
  const NcclPlan p = plan_ok(nvlink(8, 3));
  NcclCapturedAllReduce capture = after_first_step();
  capture.simple_protocol = true;
  capture.in_place = false;
  capture.cumem_buffers = true;
  capture.distinct_buffers = 5;
  Result<NcclAllocationList> extra = plan_graph_capture(p, capture);
  ASSERT_EQ(extra->size(), 1u);
  // one table of 8 peer pointers (64 B) per buffer, each a 2 MiB cuMem granule: 5 x 2 MiB
  EXPECT_EQ((*extra)[0].request.value(), 64);
  EXPECT_EQ(extra->total().value(), 10 * kMiB);

  capture.in_place = true;  // dist.all_reduce: never registered
  EXPECT_TRUE(plan_graph_capture(p, capture)->empty());
  capture.in_place = false;
  capture.cumem_buffers = false;  // cudaMalloc'd buffers need NCCL_LEGACY_CUDA_REGISTER=1
  EXPECT_TRUE(plan_graph_capture(p, capture)->empty());
  capture.cumem_buffers = true;
  EXPECT_TRUE(plan_graph_capture(plan_ok(pcie(8, 3, false)), capture)->empty());  // SHM
  NcclCommInput no_cumem = nvlink(8, 3);
  no_cumem.settings.cumem_enable = false;
  EXPECT_TRUE(plan_graph_capture(plan_ok(no_cumem), capture)->empty());
}

TEST(NcclGraphCapture, RejectsNonPositiveCounts) {
  NcclCapturedAllReduce capture;
  capture.launches = 0;
  Result<NcclAllocationList> extra = plan_graph_capture(plan_ok(nvlink(2, 0)), capture);
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(),
            "a captured all-reduce needs positive counts, got 0 launches x 1 per launch, 1 "
            "buffers, 0 launches before");
  capture.launches = 1;
  capture.launches_before = -1;
  extra = plan_graph_capture(plan_ok(nvlink(2, 0)), capture);
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().message(),
            "a captured all-reduce needs positive counts, got 1 launches x 1 per launch, 1 "
            "buffers, -1 launches before");
}

}  // namespace
}  // namespace gpumem
