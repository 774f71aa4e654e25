#include "probe/selftest.h"

#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/exit_codes.h"
#include "probe/atomic_file.h"
#include "probe/nccl_env.h"
#include "probe/provenance.h"
#include "probe/rank_runtime.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;

constexpr Bytes kWeightsBlock = mib(64);
constexpr Bytes kIpcBuffer = mib(2);
constexpr Bytes kSmallAllReduce = kib(4);
constexpr Bytes kLargeAllReduce = mib(64);
constexpr Bytes kGraphBuffer = mib(16);
constexpr Bytes kGraphAllReduce = mib(1);
// The out-of-memory request: more than the GPU has, by a margin no driver rounding closes.
constexpr Bytes kOomMargin = gib(1);

class Steps {
 public:
  explicit Steps(RankRuntime& rt) : rt_(rt), last_(rt.sampler().read()) {
    json first = {{"step", "before_cuda"}, {"status", "ok"}, {"sample", to_json(last_)}};
    steps_.push_back(std::move(first));
  }

  // Runs one step; `expect` is the status code that counts as success for it.
  bool run(std::string name, const std::function<Status(json&)>& body,
           StatusCode expect = StatusCode::kOk) {
    json detail = json::object();
    const Status s = body(detail);
    const Sample now = rt_.sampler().read();
    const bool passed = s.code() == expect;
    // What the probe itself holds through cudaMalloc after the step, by ledger category:
    // the part of the memory in use that is neither the context nor a library's.
    json own = json::object();
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
      own[std::string(kCategoryNames[c])] =
          rt_.device().allocated(static_cast<Category>(c)).value();
    }
    json step = {{"step", name},
                 {"status", status_code_name(s.code())},
                 {"expected", status_code_name(expect)},
                 {"passed", passed},
                 {"message", s.message()},
                 {"sample", to_json(now)},
                 {"delta", delta_json(last_, now)},
                 {"own_allocations", std::move(own)}};
    if (!detail.empty()) step["detail"] = std::move(detail);
    steps_.push_back(std::move(step));
    last_ = now;
    rt_.log(fmt::format("{} {}{}{}", passed ? "ok  " : "FAIL", name,
                        s.message().empty() ? "" : ": ", s.message()));
    if (!passed) failed_ = true;
    return passed;
  }

  bool failed() const { return failed_; }
  json to_json_steps() { return std::move(steps_); }

 private:
  RankRuntime& rt_;
  Sample last_;
  json steps_ = json::array();
  bool failed_ = false;
};

std::vector<int> all_ranks(int world) {
  std::vector<int> v(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) v[r] = r;
  return v;
}

}  // namespace

int run_selftest_rank(const RankEnv& env, const std::filesystem::path& out_dir,
                      std::chrono::milliseconds timeout) {
  auto started = RankRuntime::start(env, timeout);
  if (!started.ok()) {
    std::fprintf(stderr, "[gpumem-probe rank %d] cannot start: %s\n", env.rank,
                 started.status().message().c_str());
    return kExitInternal;
  }
  RankRuntime& rt = **started;
  Device& device = rt.device();
  Comm& comm = rt.comm();
  Steps steps(rt);
  json provenance = nullptr;

  const bool context = steps.run("init_context", [&](json&) { return device.init_context(); });
  if (context) {
    provenance = collect_provenance(rt);
    steps.run("malloc_touch_free", [&](json& d) {
      auto p = device.malloc(kWeightsBlock, Category::kWeights);
      if (!p.ok()) return p.status();
      const MemInfo held = device.mem_get_info();
      d["free_while_held"] = held.free.value();
      const DevicePtr buffers[] = {*p};
      Status s = device.launch_kernel(buffers, kWeightsBlock);
      device.free(*p);
      return s.ok() ? rt.device().health() : s;
    });
    steps.run(
        "out_of_memory",
        [&](json& d) {
          const MemInfo before = device.mem_get_info();
          auto p = device.malloc(before.total + kOomMargin, Category::kKvCache);
          if (p.ok()) {
            device.free(*p);
            return internal_error("a request larger than the GPU succeeded");
          }
          const MemInfo after = device.mem_get_info();
          d["free_before"] = before.free.value();
          d["free_after"] = after.free.value();
          return p.status();
        },
        StatusCode::kOutOfMemory);
    steps.run("min_over_world", [&](json& d) {
      const MemInfo m = device.mem_get_info();
      auto as_float = comm.min_over_world(m.free, /*as_float32=*/true);
      if (!as_float.ok()) return as_float.status();
      auto exact = comm.min_over_world(m.free.value());
      if (!exact.ok()) return exact.status();
      d["local_free"] = m.free.value();
      d["min_free_float32"] = as_float->value();
      d["min_free"] = *exact;
      return Status::ok_status();
    });
    steps.run("ipc_exchange", [&](json& d) {
      // Every rank joins the exchange and the barrier, also after a failed allocation or
      // export, so that nobody waits in vain.
      auto mine = device.malloc(kIpcBuffer, Category::kCommunication);
      Status s = mine.ok() ? Status::ok_status() : mine.status();
      IpcHandle handle;
      if (s.ok()) {
        auto h = device.ipc_export(*mine);
        if (h.ok()) {
          handle = *h;
        } else {
          s = h.status();
        }
      }
      auto all = comm.all_gather(all_ranks(comm.world_size()), handle);
      if (s.ok() && !all.ok()) s = all.status();
      int opened = 0;
      for (int r = 0; s.ok() && r < comm.world_size(); ++r) {
        if (r == comm.rank()) continue;
        auto p = device.ipc_open((*all)[r]);
        if (!p.ok()) {
          s = p.status();
          break;
        }
        ++opened;
        device.ipc_close(*p);
      }
      d["peers_opened"] = opened;
      const Status b = comm.barrier();
      if (mine.ok()) device.free(*mine);
      return s.ok() ? b : s;
    });
    auto settings = nccl_settings_from_env(process_env());
    std::optional<CommunicatorId> world;
    steps.run("nccl_init", [&](json& d) {
      if (!settings.ok()) return settings.status();
      auto id = comm.create_communicator(all_ranks(comm.world_size()), *settings);
      if (!id.ok()) return id.status();
      world = *id;
      auto v = NcclComm::runtime_version();
      d["nccl_version"] = v.ok() ? json(*v) : json(nullptr);
      return Status::ok_status();
    });
    if (world) {
      steps.run("nccl_first_small_all_reduce",
                [&](json&) { return comm.all_reduce(*world, DevicePtr{}, kSmallAllReduce); });
      steps.run("nccl_first_large_all_reduce",
                [&](json&) { return comm.all_reduce(*world, DevicePtr{}, kLargeAllReduce); });
      steps.run("graph_capture", [&](json& d) {
        GPUMEM_RETURN_IF_ERROR(device.begin_graph_capture());
        // Allocation inside the capture, as PyTorch's graph pool does: relaxed mode allows it.
        auto buf = device.malloc(kGraphBuffer, Category::kGraphs);
        Status s = buf.ok() ? Status::ok_status() : buf.status();
        if (s.ok()) {
          const DevicePtr buffers[] = {*buf};
          s = device.launch_kernel(buffers, kGraphBuffer);
        }
        if (s.ok()) s = comm.all_reduce(*world, DevicePtr{}, kGraphAllReduce);
        auto graph = device.end_graph_capture();
        if (s.ok() && !graph.ok()) s = graph.status();
        if (graph.ok()) d["graph"] = graph->index;
        return s;
      });
    }
    steps.run("load_cublas", [&](json&) { return device.load_library("cublas"); });
    steps.run("final_barrier", [&](json&) { return comm.barrier(); });
  }
  const Status down = rt.shutdown();
  if (!down.ok()) rt.log("shutdown: " + down.message());

  const json out = {{"schema", "gpumem-probe-selftest/1"},
                    {"rank", env.rank},
                    {"world_size", env.world_size},
                    {"local_rank", env.local_rank},
                    {"launcher", launcher_name(env.launcher)},
                    {"passed", !steps.failed() && down.ok()},
                    {"shutdown", down.ok() ? json(nullptr) : json(down.message())},
                    {"provenance", std::move(provenance)},
                    {"steps", steps.to_json_steps()}};
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const std::filesystem::path file = out_dir / fmt::format("selftest.rank{}.json", env.rank);
  if (Status w = write_json_atomically(file, out); !w.ok()) {
    rt.log(w.message());
    return kExitInternal;
  }
  rt.log(fmt::format("wrote {}", file.string()));
  return out["passed"].get<bool>() ? kExitOk : kExitInternal;
}

}  // namespace gpumem::probe
