// The NCCL memory model against the probe's measurements on 2 x H200 (NCCL 2.28.9, driver
// 580.159.04, CUDA 13): every case of reports/probe/h200x2/facts/nccl.json and graphs.json,
// per phase and per rank, and the self-test's NCCL steps.
//
// What each case measured (src/probe/README.md, "facts"): one process per rank, a fresh
// process per case; the rank cudaMallocs a 4 KiB and a 64 MiB all-reduce buffer, then reads
// cudaMemGetInfo before ncclCommInitRankConfig, after it, after a first 4 KiB all-reduce and
// after a first 64 MiB all-reduce (then the same for a second communicator when the case has
// one). The measured values are the cuda_free deltas of the JSON, in MiB (all are whole MiB).
//
// The model's reading of a phase is what SimComm charges: the kernel image and the
// unlogged init overhead at init, the stack growth at the first collective, and the phase's
// allocation records, cuMem ones as charged and cudaMalloc ones through the probe GPU's page
// rule (facts malloc.json), mirrored by `CudaMallocPages` below.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>

#include "nccl/nccl_graph_capture.h"
#include "nccl/nccl_plan.h"

namespace gpumem {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

// cudaMalloc on the probe's H200 (facts malloc.json): a request up to 1 MiB takes 512 B
// granules packed into shared 2 MiB pages; a larger one takes whole 2 MiB pages.
class CudaMallocPages {
 public:
  // Device bytes newly taken by cudaMalloc(size).
  std::int64_t malloc(std::int64_t size) {
    if (size > kSmallLimit) return round_up(size, kPage);
    const std::int64_t need = round_up(size, kGranule);
    if (need <= small_room_) {
      small_room_ -= need;
      return 0;
    }
    small_room_ = kPage - need;
    return kPage;
  }

 private:
  static constexpr std::int64_t kPage = 2 * kMiB;
  static constexpr std::int64_t kSmallLimit = kMiB;
  static constexpr std::int64_t kGranule = 512;
  static std::int64_t round_up(std::int64_t v, std::int64_t g) { return (v + g - 1) / g * g; }

  std::int64_t small_room_ = 0;  // free bytes left in the newest small-allocation page
};

// Device bytes one phase's allocation records leave taken.
std::int64_t phase_bytes(const NcclPlan& plan, NcclPhase phase, CudaMallocPages& pages) {
  std::int64_t taken = 0;
  for (const NcclAllocation& a : plan.allocations) {
    if (a.phase != phase) continue;
    if (a.transient) {
      // Freed before the reading; whole pages (the legacy IPC check is CUDA_IPC_MIN, 2 MiB)
      // go back whole, so it leaves no trace in the packing either.
      EXPECT_GT(a.charged.value(), kMiB) << describe(a);
      continue;
    }
    for (int i = 0; i < a.count; ++i) {
      taken += a.allocator == NcclAllocator::kCudaMalloc ? pages.malloc(a.charged.value())
                                                         : a.charged.value();
    }
  }
  return taken;
}

struct Reading {  // MiB taken by each phase of one communicator on one rank
  std::int64_t init = 0;
  std::int64_t first_small = 0;
  std::int64_t first_large = 0;
  bool operator==(const Reading&) const = default;
};

std::string show(const Reading& r) {
  return std::to_string(r.init) + " / " + std::to_string(r.first_small) + " / " +
         std::to_string(r.first_large) + " MiB";
}

NcclCommInput h200(int position, const NcclSettings& settings) {
  NcclCommInput input;
  input.nranks = 2;
  input.position = position;
  input.interconnect = NcclInterconnect::kNvlink;
  input.compute_capability = 90;
  input.resident_threads = 132 * 2048;
  input.settings = settings;
  return input;
}

// The model's reading of one communicator; the 4 KiB all-reduce on two ranks is the first
// collective of any algorithm (with two ranks the tree uses the ring's connections), the
// 64 MiB one finds every connection made.
Reading model(const NcclCommInput& input, CudaMallocPages& pages) {
  Result<NcclPlan> plan = plan_communicator(input);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  const std::int64_t init = plan->kernel_image.value() + plan->init_overhead.value() +
                            phase_bytes(*plan, NcclPhase::kInit, pages);
  const std::int64_t first = plan->launch_stack_growth.value() +
                             phase_bytes(*plan, NcclPhase::kFirstRingCollective, pages) +
                             phase_bytes(*plan, NcclPhase::kFirstTreeCollective, pages);
  EXPECT_EQ(init % kMiB, 0);
  EXPECT_EQ(first % kMiB, 0);
  return {init / kMiB, first / kMiB, 0};
}

NcclSettings settings(int cumem, int runtime_connect, bool buffsize_1m, int channels) {
  NcclSettings s;
  s.cumem_enable = cumem != 0;
  s.runtime_connect = runtime_connect != 0;
  if (buffsize_1m) s.buffsize = bytes(1'048'576);
  if (channels > 0) s.min_channels = s.max_channels = channels;
  return s;
}

NcclSettings p2p_disable() {
  NcclSettings s;
  s.p2p_disable = true;
  return s;
}

NcclSettings p2p_level_loc() {
  NcclSettings s;
  s.p2p_level = "LOC";
  return s;
}

struct FactsCase {
  const char* name;  // the case's name in nccl.json
  NcclSettings settings;
  std::array<Reading, 2> measured;  // rank 0, rank 1
  std::optional<std::array<Reading, 2>> second;
};

// How the model composes each family (MiB; K = 170 kernel image, O = 22 init overhead at the
// first communicator, 2 at a later one, S = 186 stack at the first launch; tables and device
// comm as cudaMalloc requests pack into the page of the probe's 4 KiB buffer, as cuMem they
// take 2 MiB each):
//  cuMem off (always eager): K + O + ring C x (R + 2) + net proxy P x 16 x chunk | S
//    default: 170 + 22 + 24 x 12 + 32 x 16 x 0.5 = 736; channels 2: 192 + 24 + 16 = 232;
//    channels 8: 192 + 96 + 64 = 352; buffsize 1 MiB (R = 8, chunk 128 KiB): 192 + 240 + 64
//    = 496, with channels 2: 192 + 20 + 4 = 216, with channels 8: 192 + 80 + 16 = 288
//  cuMem on, runtime connect off: the same plus tables P x 3 x 2 + device comm 4:
//    932, 248, 404, 692, 232, 340
//  cuMem on, runtime connect on: K + O + P x 6 + 4 | S + C x (R + 2):
//    388 | 474, 208 | 210, 244 | 282, 388 | 426, 208 | 206, 244 | 266
//  P2P off or P2P level LOC (SHM, 4 channels, buffers in host memory): 170 + 22 + 24 + 4 | S
//  a second communicator: no K, O = 2, no S: 196 + 2 = 198 | 288
TEST(NcclH200Facts, ReproducesEveryNcclJsonCase) {
  const FactsCase cases[] = {
      {"cumem=0 runtime_connect=0 buffsize=default channels=default",
       settings(0, 0, false, 0),
       {{{736, 186, 0}, {736, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=0 buffsize=default channels=2",
       settings(0, 0, false, 2),
       {{{232, 186, 0}, {232, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=0 buffsize=default channels=8",
       settings(0, 0, false, 8),
       {{{352, 186, 0}, {352, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=0 buffsize=1048576 channels=default",
       settings(0, 0, true, 0),
       {{{496, 186, 0}, {496, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=0 buffsize=1048576 channels=2",
       settings(0, 0, true, 2),
       {{{216, 186, 0}, {216, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=0 buffsize=1048576 channels=8",
       settings(0, 0, true, 8),
       {{{288, 186, 0}, {288, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=default channels=default",
       settings(0, 1, false, 0),
       {{{736, 186, 0}, {736, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=default channels=2",
       settings(0, 1, false, 2),
       {{{232, 186, 0}, {232, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=default channels=8",
       settings(0, 1, false, 8),
       {{{352, 186, 0}, {352, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=1048576 channels=default",
       settings(0, 1, true, 0),
       {{{496, 186, 0}, {496, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=1048576 channels=2",
       settings(0, 1, true, 2),
       {{{216, 186, 0}, {216, 186, 0}}},
       std::nullopt},
      {"cumem=0 runtime_connect=1 buffsize=1048576 channels=8",
       settings(0, 1, true, 8),
       {{{288, 186, 0}, {288, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=default channels=default",
       settings(1, 0, false, 0),
       {{{932, 186, 0}, {932, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=default channels=2",
       settings(1, 0, false, 2),
       {{{248, 186, 0}, {248, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=default channels=8",
       settings(1, 0, false, 8),
       {{{404, 186, 0}, {404, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=1048576 channels=default",
       settings(1, 0, true, 0),
       {{{692, 186, 0}, {692, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=1048576 channels=2",
       settings(1, 0, true, 2),
       {{{232, 186, 0}, {232, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=0 buffsize=1048576 channels=8",
       settings(1, 0, true, 8),
       {{{340, 186, 0}, {340, 186, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=default channels=default",
       settings(1, 1, false, 0),
       {{{388, 474, 0}, {388, 474, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=default channels=2",
       settings(1, 1, false, 2),
       {{{208, 210, 0}, {208, 210, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=default channels=8",
       settings(1, 1, false, 8),
       {{{244, 282, 0}, {244, 282, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=1048576 channels=default",
       settings(1, 1, true, 0),
       {{{388, 426, 0}, {388, 426, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=1048576 channels=2",
       settings(1, 1, true, 2),
       {{{208, 206, 0}, {208, 206, 0}}},
       std::nullopt},
      {"cumem=1 runtime_connect=1 buffsize=1048576 channels=8",
       settings(1, 1, true, 8),
       {{{244, 266, 0}, {244, 266, 0}}},
       std::nullopt},
      {"p2p_disable=1 (host-staged transport, PCIe emulation)",
       p2p_disable(),
       {{{220, 186, 0}, {220, 186, 0}}},
       std::nullopt},
      {"p2p_level=LOC (host-staged transport, PCIe emulation)",
       p2p_level_loc(),
       {{{220, 186, 0}, {220, 186, 0}}},
       std::nullopt},
      {"default settings, two communicators",
       NcclSettings{},
       {{{388, 474, 0}, {388, 474, 0}}},
       {{{{198, 288, 0}, {198, 288, 0}}}}},
  };
  int checked = 0;
  for (const FactsCase& c : cases) {
    for (int rank = 0; rank < 2; ++rank) {
      CudaMallocPages pages;
      pages.malloc(4096);  // the probe's all-reduce buffers, taken before the first reading
      pages.malloc(64 * kMiB);
      NcclCommInput input = h200(rank, c.settings);
      const Reading first = model(input, pages);
      EXPECT_EQ(first, c.measured[rank]) << c.name << ", rank " << rank << ": model " << show(first)
                                         << ", measured " << show(c.measured[rank]);
      ++checked;
      if (!c.second) continue;
      input.first_in_process = false;
      input.first_launch_in_process = false;
      const Reading second = model(input, pages);
      EXPECT_EQ(second, (*c.second)[rank])
          << c.name << " (second communicator), rank " << rank << ": model " << show(second)
          << ", measured " << show((*c.second)[rank]);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 27 * 2 + 2);  // every communicator of every case on both ranks
}

// graphs.json "all-reduce in a graph": after an eager 1 MiB all-reduce, two graphs each
// capturing one in-place 1 MiB all-reduce (plus cudaGraphInstantiate); measured on both ranks,
// cuMem off and on: 2 MiB for the first graph, 0 for the second.
TEST(NcclH200Facts, ReproducesGraphsJsonAllReduceInAGraph) {
  for (const bool cumem : {false, true}) {
    for (int rank = 0; rank < 2; ++rank) {
      NcclSettings s;
      s.cumem_enable = cumem;
      Result<NcclPlan> plan = plan_communicator(h200(rank, s));
      ASSERT_TRUE(plan.ok());
      NcclCapturedAllReduce capture;  // in place, one launch, default protocol choice
      Result<NcclAllocationList> first = plan_graph_capture(*plan, capture);
      capture.launches_before = 1;
      Result<NcclAllocationList> second = plan_graph_capture(*plan, capture);
      ASSERT_TRUE(first.ok() && second.ok());
      EXPECT_EQ(first->total().value(), 2 * kMiB) << "cumem " << cumem << ", rank " << rank;
      EXPECT_EQ(second->total().value(), 0) << "cumem " << cumem << ", rank " << rank;
    }
  }
}

// The self-test (reports/probe/h200x2/selftest, default settings but NCCL_NVLS_ENABLE=0): its
// malloc_touch_free step ran the probe's touch kernel first, so NCCL's image is not the
// context's first module: nccl_init 386 MiB (2 under the facts' 388), first small all-reduce
// 474, first large 0; graph_capture 20 MiB = a 16 MiB allocation (whole pages) + a 1 MiB
// buffer in a fresh small-allocation page (2 MiB) + one captured all-reduce (2 MiB).
TEST(NcclH200Facts, ReproducesSelftestNcclSteps) {
  for (int rank = 0; rank < 2; ++rank) {
    CudaMallocPages pages;
    NcclCommInput input = h200(rank, NcclSettings{});
    input.context_has_modules = true;
    EXPECT_EQ(model(input, pages), (Reading{386, 474, 0})) << "rank " << rank;
    Result<NcclPlan> plan = plan_communicator(input);
    ASSERT_TRUE(plan.ok());
    Result<NcclAllocationList> captured = plan_graph_capture(*plan, NcclCapturedAllReduce{});
    ASSERT_TRUE(captured.ok());
    const std::int64_t graph_capture =
        pages.malloc(16 * kMiB) + pages.malloc(kMiB) + captured->total().value();
    EXPECT_EQ(graph_capture, 20 * kMiB) << "rank " << rank;
  }
}

}  // namespace
}  // namespace gpumem
