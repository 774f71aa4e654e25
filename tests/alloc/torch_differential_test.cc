// The allocator differential: random tensor lifetimes recorded in real PyTorch (2.11, on an
// H200; reports/alloc-differential/, made by src/probe/torch/alloc_diff.py) replayed through
// the emulation, operation by operation. After every operation the emulation must report
// exactly PyTorch's allocated and reserved bytes and its segments — the allocator's own
// segment counter and, for expandable segments, the mapped ranges torch.cuda.memory_snapshot()
// lists — for the default settings, max_split_size, expandable segments and both together,
// each with CUDA-graph private pools created, shared, released and emptied.
//
// What the emulation is given, and what it is not asked to follow:
//  * segment addresses: a request that two equal free blocks could serve takes the one at
//    the lower address, and the driver chooses where a segment lies (cudaMalloc reuses the
//    addresses of freed segments); the test's device hands the emulation the address
//    PyTorch's tensor got whenever the emulation allocates a segment for a request;
//  * the capture stream's generator tensors: at the first capture PyTorch allocates two
//    8-byte tensors (the graph's RNG seed and offset) on the capture stream. Blocks are kept
//    per stream and the emulation has one stream, so those two take a 2 MiB small segment of
//    their own that nothing else can use and no empty_cache returns; the test adds their
//    1,024 bytes allocated, 2 MiB reserved and one segment (one mapped range under
//    expandable segments, which PyTorch's counter does not count) from the first capture on;
//  * a deleted pool's tensor: under expandable segments PyTorch can delete a private pool
//    while a tensor still lives in it (caching_allocator.h says how); freeing that tensor
//    afterwards is undefined behaviour in PyTorch, so a sequence is compared up to that free.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloc/caching_allocator.h"
#include "device/device.h"
#include "engine/allocator_environment.h"

namespace gpumem {
namespace {

// Exact accounting like FakeDevice, at the address it is told for the next allocation.
class AddressedDevice final : public Device {
 public:
  explicit AddressedDevice(Bytes total) : total_(total) {}
  void place_next_at(std::uint64_t address) { next_ = address; }

  Status init_context() override { return Status::ok_status(); }
  MemInfo mem_get_info() override { return {total_ - used_, total_}; }
  Result<DevicePtr> malloc(Bytes size, Category) override {
    used_ += size;
    sizes_[synthetic_] = size;
    const std::uint64_t address = next_ != 0 ? next_ : synthetic_;
    next_ = 0;
    addresses_[address] = synthetic_++;
    return DevicePtr{address};
  }
  void free(DevicePtr ptr) override {
    const auto it = addresses_.find(ptr.address);
    if (it == addresses_.end()) return;
    used_ -= sizes_.at(it->second);
    addresses_.erase(it);
  }
  Result<IpcHandle> ipc_export(DevicePtr) override { return not_modelled(); }
  Result<DevicePtr> ipc_open(const IpcHandle&) override { return not_modelled(); }
  void ipc_close(DevicePtr) override {}
  Status begin_graph_capture() override { return not_modelled(); }
  Status launch_kernel(std::span<const DevicePtr>, Bytes) override { return not_modelled(); }
  Result<GraphId> end_graph_capture() override { return not_modelled(); }
  Status load_library(std::string_view) override { return not_modelled(); }

 private:
  static Status not_modelled() { return internal_error("AddressedDevice models memory only"); }
  Bytes total_;
  Bytes used_;
  std::uint64_t next_ = 0;
  std::uint64_t synthetic_ = 1;  // a key per allocation, and the address of unplaced ones
  std::map<std::uint64_t, std::uint64_t> addresses_;
  std::map<std::uint64_t, Bytes> sizes_;
};

// torch.cuda.get_device_properties(0).total_memory of the H200 the sequences ran on: an
// expandable segment reserves 9/8 of it in address space.
constexpr std::int64_t kH200Total = 150'109'880'320;

// The recorded PYTORCH_CUDA_ALLOC_CONF, read as an engine process's environment is.
AllocatorConfig config_of(const std::string& conf) {
  AllocatorSettings settings;
  Diagnostics diags;
  read_allocator_variable({"PYTORCH_CUDA_ALLOC_CONF", conf, {}, {}}, settings, diags);
  EXPECT_EQ(diags.to_string(), "");
  return settings.config;
}

struct Observed {
  std::int64_t allocated, reserved, segments, snapshot_segments;
  friend bool operator==(const Observed&, const Observed&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Observed& o) {
    return os << "allocated " << o.allocated << ", reserved " << o.reserved << ", segments "
              << o.segments << ", snapshot segments " << o.snapshot_segments;
  }
};

// The number of operations compared (all of them, or up to the free of a tensor of a pool
// PyTorch deleted) and the lifetimes among them.
struct Compared {
  size_t operations = 0;
  int lifetimes = 0;
};

Compared replay(const std::string& file) {
  std::ifstream in(file);
  const nlohmann::json d = nlohmann::json::parse(in);
  EXPECT_EQ(d["error"], nullptr);
  const AllocatorConfig config = config_of(d["pytorch_cuda_alloc_conf"]);
  AddressedDevice device(bytes(kH200Total));
  CachingAllocator a(device, config);
  std::map<std::int64_t, BlockHandle> tensors;
  std::map<std::int64_t, std::int64_t> pool_of;  // tensor -> pool routed to, 0 for none
  std::map<std::int64_t, PoolId> pools;
  std::int64_t routed = 0;
  bool captured = false;
  const auto& ops = d["ops"];
  const auto& observed = d["observed"];
  EXPECT_EQ(ops.size(), observed.size());
  Compared c;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& op = ops[i];
    const std::string code = op[0];
    if (code == "alloc") {
      device.place_next_at(observed[i][6].get<std::uint64_t>());
      Result<BlockHandle> h = a.allocate(bytes(op[2].get<std::int64_t>()), Category::kOther);
      EXPECT_TRUE(h.ok()) << i << ": " << h.status().message();
      if (!h.ok()) return c;
      device.place_next_at(0);
      tensors[op[1]] = *h;
      pool_of[op[1]] = routed;
      ++c.lifetimes;
    } else if (code == "free") {
      const std::int64_t pool = pool_of.at(op[1]);
      if (pool != 0 && !a.pool_info(pools.at(pool))) return c;  // deleted under it
      EXPECT_TRUE(a.free(tensors.at(op[1])).ok()) << i;
      tensors.erase(op[1].get<std::int64_t>());
    } else if (code == "empty_cache") {
      a.empty_cache();
    } else if (code == "pool_create") {
      pools[op[1]] = a.create_pool();
    } else if (code == "capture_begin") {
      captured = true;
      routed = op[1];
      EXPECT_TRUE(a.begin_allocate_to_pool(pools.at(op[1])).ok()) << i;
    } else if (code == "capture_end") {
      routed = 0;
      EXPECT_TRUE(a.end_allocate_to_pool(pools.at(op[1])).ok()) << i;
    } else if (code == "pool_release") {
      EXPECT_TRUE(a.release_pool(pools.at(op[1])).ok()) << i;
    } else {
      ADD_FAILURE() << "unknown operation " << code;
      return c;
    }
    // The capture stream's generator tensors (see the top of this file).
    const std::int64_t generator = captured ? 1 : 0;
    const Observed emulated{a.memory_allocated().value() + generator * 1024,
                            a.memory_reserved().value() + generator * mib(2).value(),
                            a.stats().segments + (config.expandable_segments ? 0 : generator),
                            a.snapshot_segments() + generator};
    const auto& o = observed[i];
    const Observed torch{o[0], o[1], o[2], o[3]};
    EXPECT_EQ(emulated, torch) << "after operation " << i << " " << op.dump();
    if (emulated != torch) return c;
    c.operations = i + 1;
  }
  return c;
}

Compared replay_config(const std::string& name) {
  SCOPED_TRACE(name);
  return replay(GPUMEM_SOURCE_DIR "/reports/alloc-differential/" + name + ".json");
}

TEST(TorchDifferential, DefaultSettings) {
  const Compared c = replay_config("default");
  EXPECT_EQ(c.operations, 2647u);
  EXPECT_EQ(c.lifetimes, 1200);
}

TEST(TorchDifferential, MaxSplitSize) {
  const Compared c = replay_config("max_split_size");
  EXPECT_EQ(c.operations, 2650u);
  EXPECT_EQ(c.lifetimes, 1200);
}

TEST(TorchDifferential, ExpandableSegmentsWithMaxSplitSize) {
  const Compared c = replay_config("expandable_max_split_size");
  EXPECT_EQ(c.operations, 2660u);
  EXPECT_EQ(c.lifetimes, 1200);
}

// Compared up to operation 1478 of 2667, the free of a tensor in private pool 14, which
// PyTorch deleted at operation 1430's empty_cache (its count of mappings had reached zero).
TEST(TorchDifferential, ExpandableSegmentsUntilPytorchDeletesAPoolInUse) {
  const Compared c = replay_config("expandable_segments");
  EXPECT_EQ(c.operations, 1478u);
  EXPECT_EQ(c.lifetimes, 726);
}

TEST(TorchDifferential, EveryRecordedSequenceIsReplayed) {
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(GPUMEM_SOURCE_DIR "/reports/alloc-differential")) {
    files += e.path().extension() == ".json" ? 1 : 0;
  }
  EXPECT_EQ(files, 4);
}

// The engines' own programs: every allocator operation of each one-GPU probe scenario's
// start-up (SGLang and vLLM; weights, KV cache, profile activations, captures into shared
// private pools, their release), as `gpumem export-ops` writes it, recorded in PyTorch under
// the default settings and under expandable segments (reports/alloc-differential/engine/).
std::vector<std::string> engine_sequences() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(GPUMEM_SOURCE_DIR
                                                           "/reports/alloc-differential/engine")) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class EngineProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineProgram, MatchesPytorchAfterEveryOperation) {
  const std::string file =
      GPUMEM_SOURCE_DIR "/reports/alloc-differential/engine/" + GetParam() + ".json";
  std::ifstream in(file);
  const std::size_t operations = nlohmann::json::parse(in)["ops"].size();
  EXPECT_EQ(replay(file).operations, operations);
}

INSTANTIATE_TEST_SUITE_P(Recorded, EngineProgram, ::testing::ValuesIn(engine_sequences()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// Eleven one-GPU scenarios, each under both settings: 67,894 operations in all.
TEST(TorchDifferential, EveryEngineProgramIsRecorded) {
  const std::vector<std::string> names = engine_sequences();
  EXPECT_EQ(names.size(), 22u);
  std::size_t operations = 0;
  for (const std::string& n : names) {
    std::ifstream in(GPUMEM_SOURCE_DIR "/reports/alloc-differential/engine/" + n + ".json");
    operations += nlohmann::json::parse(in)["ops"].size();
  }
  EXPECT_EQ(operations, 67894u);
}

}  // namespace
}  // namespace gpumem
