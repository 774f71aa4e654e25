#include "probe/facts_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "probe/nccl_env.h"

namespace gpumem::probe {
namespace {

struct KindName {
  FactKind kind;
  std::string_view name;
};

constexpr std::array<KindName, 10> kKindNames = {{
    {FactKind::kCountGpus, "count_gpus"},
    {FactKind::kProvenance, "provenance"},
    {FactKind::kContext, "context"},
    {FactKind::kMalloc, "malloc"},
    {FactKind::kCuMem, "cumem"},
    {FactKind::kIpc, "ipc"},
    {FactKind::kNccl, "nccl"},
    {FactKind::kGraphNodes, "graph_nodes"},
    {FactKind::kGraphNccl, "graph_nccl"},
    {FactKind::kCublas, "cublas"},
}};

std::string describe(const NcclSettings& s) {
  const auto flag = [](const std::optional<bool>& b) {
    return b ? std::string(*b ? "1" : "0") : std::string("default");
  };
  std::string channels = "default";
  if (s.min_channels && s.max_channels && *s.min_channels == *s.max_channels) {
    channels = std::to_string(*s.min_channels);
  }
  return fmt::format("cumem={} runtime_connect={} buffsize={} channels={}", flag(s.cumem_enable),
                     flag(s.runtime_connect),
                     s.buffsize ? std::to_string(s.buffsize->value()) : std::string("default"),
                     channels);
}

// The environment of an NCCL job: every variable NcclSettings governs, set or unset.
void add_nccl_env(const NcclSettings& s, FactJob& job) {
  auto expected = nccl_env_expectations(s);
  if (!expected.ok()) return;  // the plan never asks for NVLink multicast
  for (const auto& [name, value] : *expected) {
    if (value) {
      job.env_set.emplace_back(name, *value);
    } else {
      job.env_unset.push_back(name);
    }
  }
  job.nccl_debug = true;
}

}  // namespace

std::string_view fact_group_name(FactGroup g) {
  switch (g) {
    case FactGroup::kProvenance:
      return "provenance";
    case FactGroup::kContext:
      return "context";
    case FactGroup::kMalloc:
      return "malloc";
    case FactGroup::kIpc:
      return "ipc";
    case FactGroup::kNccl:
      return "nccl";
    case FactGroup::kGraphs:
      return "graphs";
    case FactGroup::kCublas:
      return "cublas";
  }
  return "unknown";
}

std::string_view fact_kind_name(FactKind k) {
  for (const KindName& kn : kKindNames) {
    if (kn.kind == k) return kn.name;
  }
  return "unknown";
}

Result<FactKind> fact_kind_from_name(std::string_view name) {
  for (const KindName& kn : kKindNames) {
    if (kn.name == name) return kn.kind;
  }
  return invalid_input(fmt::format("unknown measurement kind '{}'", name));
}

int sweep_count(Bytes size) {
  const std::int64_t fit = kSweepTotal / size;
  return static_cast<int>(std::clamp<std::int64_t>(fit, 2, kSweepMaxCount));
}

std::vector<SweepPoint> malloc_sweep() {
  // Around the boundaries of the driver's rounding that the research notes report
  // (cuda-memory-facts.md §2.1, one third-party measurement): sub-page sizes, 1 MiB and
  // 2 MiB and one byte past each, sizes between whole pages, and one large odd size.
  const std::array<Bytes, 13> sizes = {
      bytes(256),           kib(4),    kib(64),    kib(512),          mib(1),
      mib(1) + bytes(1),    kib(1536), mib(2),     mib(2) + bytes(1), mib(3),
      mib(8) + bytes(3456), mib(10),   kib(256512)};
  std::vector<SweepPoint> out;
  for (Bytes s : sizes) out.push_back({s, sweep_count(s)});
  return out;
}

std::vector<NcclCase> nccl_cases() {
  std::vector<NcclCase> out;
  for (bool cumem : {false, true}) {
    for (bool runtime_connect : {false, true}) {
      for (bool small_buffers : {false, true}) {
        for (int channels : {0, 2, 8}) {
          NcclCase c;
          c.settings.cumem_enable = cumem;
          c.settings.runtime_connect = runtime_connect;
          if (small_buffers) c.settings.buffsize = mib(1);
          if (channels != 0) {
            c.settings.min_channels = channels;
            c.settings.max_channels = channels;
          }
          c.name = describe(c.settings);
          out.push_back(std::move(c));
        }
      }
    }
  }
  NcclCase p2p_off;
  p2p_off.settings.p2p_disable = true;
  p2p_off.host_staged = true;
  p2p_off.name = "p2p_disable=1 (host-staged transport, PCIe emulation)";
  out.push_back(std::move(p2p_off));
  NcclCase p2p_loc;
  p2p_loc.settings.p2p_level = "LOC";
  p2p_loc.host_staged = true;
  p2p_loc.name = "p2p_level=LOC (host-staged transport, PCIe emulation)";
  out.push_back(std::move(p2p_loc));
  NcclCase two;
  two.second_communicator = true;
  two.name = "default settings, two communicators";
  out.push_back(std::move(two));
  return out;
}

std::vector<NcclCase> graph_nccl_cases() {
  std::vector<NcclCase> out;
  for (bool cumem : {false, true}) {
    NcclCase c;
    c.settings.cumem_enable = cumem;
    c.name = fmt::format("all-reduce in a graph, cumem={}", cumem ? 1 : 0);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<FactJob> facts_plan(int nccl_ranks) {
  std::vector<FactJob> jobs;
  const auto single = [&](std::string name, FactKind kind, FactGroup group, int index) -> FactJob& {
    FactJob j;
    j.name = std::move(name);
    j.kind = kind;
    j.group = group;
    j.index = index;
    jobs.push_back(std::move(j));
    return jobs.back();
  };

  single("provenance", FactKind::kProvenance, FactGroup::kProvenance, 0).every_gpu = true;
  for (std::size_t i = 0; i < kModuleLoadingModes.size(); ++i) {
    const std::string_view mode = kModuleLoadingModes[i];
    FactJob& j =
        single(fmt::format("context CUDA_MODULE_LOADING={}", mode.empty() ? "inherited" : mode),
               FactKind::kContext, FactGroup::kContext, static_cast<int>(i));
    if (!mode.empty()) j.env_set.emplace_back("CUDA_MODULE_LOADING", std::string(mode));
  }
  single("cumem granularity", FactKind::kCuMem, FactGroup::kMalloc, 0);
  const std::vector<SweepPoint> sweep = malloc_sweep();
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    single(fmt::format("malloc {} B x {}", sweep[i].size.value(), sweep[i].count),
           FactKind::kMalloc, FactGroup::kMalloc, static_cast<int>(i));
  }
  single("graph kernel nodes", FactKind::kGraphNodes, FactGroup::kGraphs, 0);
  single("cublas", FactKind::kCublas, FactGroup::kCublas, 0);

  const std::vector<NcclCase> cases = nccl_cases();
  const auto nccl_job = [&](int index) {
    const NcclCase& c = cases[index];
    FactJob j;
    j.name = "nccl " + c.name;
    j.kind = FactKind::kNccl;
    j.group = FactGroup::kNccl;
    j.index = index;
    j.ranks = c.host_staged ? 2 : nccl_ranks;
    add_nccl_env(c.settings, j);
    jobs.push_back(std::move(j));
  };
  // Defaults with a second communicator first: the case every engine runs.
  nccl_job(static_cast<int>(cases.size()) - 1);
  const std::vector<NcclCase> graph_cases = graph_nccl_cases();
  for (std::size_t i = 0; i < graph_cases.size(); ++i) {
    FactJob j;
    j.name = "graph " + graph_cases[i].name;
    j.kind = FactKind::kGraphNccl;
    j.group = FactGroup::kGraphs;
    j.index = static_cast<int>(i);
    j.ranks = nccl_ranks;
    add_nccl_env(graph_cases[i].settings, j);
    jobs.push_back(std::move(j));
  }
  FactJob ipc;
  ipc.name = "ipc open peer handles";
  ipc.kind = FactKind::kIpc;
  ipc.group = FactGroup::kIpc;
  ipc.ranks = 2;
  jobs.push_back(std::move(ipc));
  for (int i = 0; i + 1 < static_cast<int>(cases.size()); ++i) nccl_job(i);
  return jobs;
}

}  // namespace gpumem::probe
