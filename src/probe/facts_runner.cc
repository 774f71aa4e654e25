#include "probe/facts_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "core/exit_codes.h"
#include "probe/atomic_file.h"
#include "probe/host_exchange.h"
#include "probe/nccl_log.h"
#include "probe/rank_env.h"
#include "probe/supervisor.h"

namespace gpumem::probe {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::string_view kSchema = "gpumem-probe-facts/1";
constexpr int kNcclLogLinesKept = 300;
constexpr auto kKillGrace = std::chrono::milliseconds(5000);

// A field of a worker's result, tolerating a result file that lacks it or has another type.
bool ok_field(const json& rank) {
  const auto it = rank.find("ok");
  return it != rank.end() && it->is_boolean() && it->get<bool>();
}
std::string error_field(const json& rank) {
  const auto it = rank.find("error");
  return it != rank.end() && it->is_string() ? it->get<std::string>() : "no error message";
}

// One run of a plan job on particular GPUs.
struct Instance {
  const FactJob* job = nullptr;
  std::string name;       // unique within the run
  std::vector<int> gpus;  // GPU of rank r is gpus[r]; empty until placed
  std::optional<int> pinned_gpu;
  int serial = 0;  // names the scratch files
};

struct Finished {
  const Instance* instance = nullptr;
  std::string status;  // ok, failed, timed_out, interrupted, skipped
  std::string message;
  double wall_s = 0;
  json ranks = json::array();
};

class Runner {
 public:
  explicit Runner(const FactsOptions& o) : options_(o), started_(Clock::now()) {}

  int run();

 private:
  double elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - started_).count();
  }
  void progress(std::string_view what) const {
    std::fprintf(stderr, "[gpumem-probe facts +%.1fs] %.*s\n", elapsed_s(),
                 static_cast<int>(what.size()), what.data());
  }
  std::filesystem::path result_path(const Instance& in, int rank) const {
    return work_ / fmt::format("job{:03d}.rank{}.json", in.serial, rank);
  }
  std::filesystem::path nccl_log_path(const Instance& in, int rank) const {
    return work_ / fmt::format("job{:03d}.rank{}.nccl.log", in.serial, rank);
  }
  Result<JobSpec> spec_for(const Instance& in) const;
  Finished collect(const Instance& in, const JobOutcome& outcome) const;
  Result<int> count_gpus();
  Status write_outputs(const std::vector<Finished>& done, int gpus, int nccl_ranks) const;
  bool wanted(FactGroup g) const {
    return options_.groups.empty() ||
           std::find(options_.groups.begin(), options_.groups.end(), g) != options_.groups.end();
  }

  const FactsOptions& options_;
  Clock::time_point started_;
  std::filesystem::path work_;
  std::vector<FactJob> plan_;
  std::deque<Instance> instances_;  // stable addresses
};

Result<JobSpec> Runner::spec_for(const Instance& in) const {
  auto port = find_free_port();
  if (!port.ok()) return port.status();
  JobSpec spec;
  spec.name = in.name;
  spec.timeout = options_.job_timeout;
  const int world = static_cast<int>(in.gpus.size());
  for (int r = 0; r < world; ++r) {
    std::vector<std::pair<std::string, std::string>> set = in.job->env_set;
    set.emplace_back("RANK", std::to_string(r));
    set.emplace_back("WORLD_SIZE", std::to_string(world));
    set.emplace_back("LOCAL_RANK", std::to_string(in.gpus[r]));
    set.emplace_back("MASTER_ADDR", "127.0.0.1");
    set.emplace_back("MASTER_PORT", std::to_string(*port));
    set.emplace_back(std::string(kProbeLauncherVar), "facts");
    std::vector<std::string> unset = in.job->env_unset;
    if (in.job->nccl_debug) {
      set.emplace_back("NCCL_DEBUG", "INFO");
      set.emplace_back("NCCL_DEBUG_SUBSYS", "INIT,ALLOC");
      set.emplace_back("NCCL_DEBUG_FILE", nccl_log_path(in, r).string());
    }
    ChildSpec child;
    child.label = world == 1 ? fmt::format("worker on GPU {}", in.gpus[r])
                             : fmt::format("rank {} (GPU {})", r, in.gpus[r]);
    // A worker gives each of its waits half the job's time, so that it reports a stuck
    // wait itself before the supervisor's timeout kills it.
    child.argv = worker_argv(options_.self_exe, in.job->kind, in.job->index, result_path(in, r),
                             options_.job_timeout / 2);
    child.env = environment_with(set, unset);
    spec.children.push_back(std::move(child));
  }
  return spec;
}

Finished Runner::collect(const Instance& in, const JobOutcome& outcome) const {
  Finished f;
  f.instance = &in;
  f.status = std::string(job_state_name(outcome.state));
  f.message = outcome.message;
  f.wall_s = outcome.wall_s;
  for (int r = 0; r < static_cast<int>(in.gpus.size()); ++r) {
    json rank;
    auto text = read_file(result_path(in, r), InputKind::kTrace);
    if (text.ok()) {
      rank = json::parse(*text, nullptr, /*allow_exceptions=*/false);
      if (rank.is_discarded()) {
        rank = {{"ok", false}, {"error", "the result file is not valid JSON"}};
      }
    } else {
      rank = {{"ok", false},
              {"error", "no result file: the worker ended before writing it (see stderr)"}};
    }
    rank["gpu"] = in.gpus[r];
    if (r < static_cast<int>(outcome.children.size())) {
      rank["process"] = describe_exit(outcome.children[r]);
    }
    if (in.job->nccl_debug) {
      auto log = read_file(nccl_log_path(in, r), InputKind::kLog);
      if (log.ok()) {
        const NcclLogSummary s = summarize_nccl_log(*log, kNcclLogLinesKept);
        json channels = json::array();
        for (const ChannelCounts& line : s.channel_lines) {
          json c = json::object();
          for (const auto& [k, v] : line) c[k] = v;
          channels.push_back(std::move(c));
        }
        json allocs = json::array();
        for (const NcclAllocTotal& a : s.allocations) {
          allocs.push_back(
              {{"kind", a.kind}, {"count", a.count}, {"requested_bytes", a.requested.value()}});
        }
        rank["nccl_log"] = {{"version", s.version ? json(*s.version) : json(nullptr)},
                            {"channels", std::move(channels)},
                            {"allocations", std::move(allocs)},
                            {"total_lines", s.total_lines},
                            {"lines", s.kept_lines}};
      } else {
        rank["nccl_log"] = nullptr;
      }
    }
    if (f.status == "ok" && !ok_field(rank)) {
      f.status = "failed";
      f.message = fmt::format("rank {}: {}", r, error_field(rank));
    }
    f.ranks.push_back(std::move(rank));
  }
  return f;
}

Result<int> Runner::count_gpus() {
  return count_gpus_in_child(options_.self_exe, work_, options_.job_timeout);
}

Status Runner::write_outputs(const std::vector<Finished>& done, int gpus, int nccl_ranks) const {
  std::map<FactGroup, json> runs;
  json jobs = json::array();
  for (const Finished& f : done) {
    const Instance& in = *f.instance;
    json env_set = json::object();
    for (const auto& [k, v] : in.job->env_set) env_set[k] = v;
    json run = {{"job", in.name},
                {"kind", fact_kind_name(in.job->kind)},
                {"index", in.job->index},
                {"status", f.status},
                {"message", f.message},
                {"wall_s", f.wall_s},
                {"gpus", in.gpus},
                {"env_set", std::move(env_set)},
                {"env_unset", in.job->env_unset},
                {"ranks", f.ranks}};
    jobs.push_back({{"job", in.name},
                    {"group", fact_group_name(in.job->group)},
                    {"status", f.status},
                    {"message", f.message},
                    {"wall_s", f.wall_s},
                    {"gpus", in.gpus}});
    auto& list = runs[in.job->group];
    if (list.is_null()) list = json::array();
    list.push_back(std::move(run));
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const json summary = {{"schema", kSchema},
                        {"hostname", host},
                        {"gpu_count", gpus},
                        {"nccl_ranks", nccl_ranks},
                        {"job_timeout_s", static_cast<double>(options_.job_timeout.count()) / 1000},
                        {"budget_s", options_.budget.count()},
                        {"wall_s", elapsed_s()},
                        {"jobs", std::move(jobs)}};
  GPUMEM_RETURN_IF_ERROR(write_json_atomically(options_.out_dir / "run.json", summary));
  for (FactGroup g : kFactGroups) {
    if (!wanted(g)) continue;
    const json file = {{"schema", kSchema},
                       {"group", fact_group_name(g)},
                       {"runs", runs.count(g) ? runs[g] : json::array()}};
    GPUMEM_RETURN_IF_ERROR(write_json_atomically(
        options_.out_dir / (std::string(fact_group_name(g)) + ".json"), file));
  }
  return Status::ok_status();
}

int Runner::run() {
  std::error_code ec;
  std::filesystem::create_directories(options_.out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "gpumem-probe facts: cannot create %s: %s\n", options_.out_dir.c_str(),
                 ec.message().c_str());
    return kExitBadInput;
  }
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  std::string tmpl = (tmp / "gpumem-probe-facts.XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "gpumem-probe facts: cannot create a scratch directory under %s\n",
                 tmp.c_str());
    return kExitInternal;
  }
  work_ = tmpl;
  progress(fmt::format("scratch directory {}", work_.string()));
  // The scratch directory goes when the run ends, however it ends, unless asked to stay.
  struct Cleanup {
    const std::filesystem::path& dir;
    bool keep;
    ~Cleanup() {
      std::error_code ignored;
      if (!keep) std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{work_, options_.keep_work};

  std::vector<Finished> done;
  auto gpus = count_gpus();
  if (!gpus.ok() || *gpus < 1) {
    const std::string why = gpus.ok() ? "CUDA sees no GPU" : gpus.status().message();
    progress("cannot start: " + why);
    json summary = {{"schema", kSchema}, {"error", why}, {"jobs", json::array()}};
    (void)write_json_atomically(options_.out_dir / "run.json", summary);
    return kExitInternal;
  }
  const int nccl_ranks = options_.nccl_ranks > 0 ? options_.nccl_ranks : std::min(*gpus, 2);
  progress(fmt::format("{} GPU(s); NCCL measurements on {} rank(s)", *gpus, nccl_ranks));

  plan_ = facts_plan(nccl_ranks);
  std::deque<Instance*> single;
  std::deque<Instance*> multi;
  int serial = 1;
  for (const FactJob& job : plan_) {
    if (!wanted(job.group)) continue;
    const int copies = job.every_gpu ? *gpus : 1;
    for (int c = 0; c < copies; ++c) {
      Instance& in = instances_.emplace_back();
      in.job = &job;
      in.serial = serial++;
      in.name = job.every_gpu ? fmt::format("{} GPU {}", job.name, c) : job.name;
      if (job.every_gpu) in.pinned_gpu = c;
      (job.ranks == 1 ? single : multi).push_back(&in);
    }
  }
  const int total = static_cast<int>(single.size() + multi.size());
  int started_count = 0;

  Supervisor sup(kKillGrace);
  std::map<std::string, Instance*> running;
  std::vector<bool> lane_busy(static_cast<std::size_t>(*gpus), false);
  bool multi_running = false;
  bool interrupted = false;

  const auto skip_all = [&](std::deque<Instance*>& q, const std::string& why) {
    for (Instance* in : q) {
      Finished f;
      f.instance = in;
      f.status = "skipped";
      f.message = why;
      done.push_back(std::move(f));
      progress(fmt::format("skipped {}: {}", in->name, why));
    }
    q.clear();
  };
  const auto start = [&](Instance* in) {
    ++started_count;
    auto spec = spec_for(*in);
    Status s = spec.ok() ? sup.start(std::move(*spec)) : spec.status();
    if (!s.ok()) {
      Finished f;
      f.instance = in;
      f.status = "failed";
      f.message = s.message();
      done.push_back(std::move(f));
      progress(fmt::format("[{}/{}] could not start {}: {}", started_count, total, in->name,
                           s.message()));
      return false;
    }
    progress(fmt::format("[{}/{}] start {} on GPU {}", started_count, total, in->name,
                         join_ranks(in->gpus)));
    running[in->name] = in;
    return true;
  };

  while (true) {
    if (stop_requested() && !interrupted) {
      interrupted = true;
      sup.interrupt_all();
      skip_all(single, "interrupted");
      skip_all(multi, "interrupted");
    }
    if (elapsed_s() > static_cast<double>(options_.budget.count())) {
      const std::string why =
          fmt::format("the run's time budget of {} s was used up", options_.budget.count());
      skip_all(single, why);
      skip_all(multi, why);
    }
    // Single-GPU jobs: one per free GPU.
    for (int g = 0; g < *gpus && !single.empty() && !multi_running; ++g) {
      if (lane_busy[g]) continue;
      auto it = std::find_if(single.begin(), single.end(), [&](const Instance* in) {
        return !in->pinned_gpu || *in->pinned_gpu == g;
      });
      if (it == single.end()) continue;
      Instance* in = *it;
      single.erase(it);
      in->gpus = {g};
      if (start(in)) lane_busy[g] = true;
    }
    // Multi-GPU jobs: alone on the machine, after every single-GPU job.
    if (single.empty() && running.empty() && !multi.empty()) {
      Instance* in = multi.front();
      multi.pop_front();
      if (in->job->ranks > *gpus) {
        Finished f;
        f.instance = in;
        f.status = "skipped";
        f.message = fmt::format("needs {} GPUs, this machine has {}", in->job->ranks, *gpus);
        progress(fmt::format("skipped {}: {}", in->name, f.message));
        done.push_back(std::move(f));
      } else {
        for (int r = 0; r < in->job->ranks; ++r) in->gpus.push_back(r);
        multi_running = start(in);
      }
    }
    for (const JobOutcome& outcome : sup.poll()) {
      Instance* in = running.at(outcome.name);
      running.erase(outcome.name);
      if (in->job->ranks == 1) {
        lane_busy[in->gpus.front()] = false;
      } else {
        multi_running = false;
      }
      Finished f = collect(*in, outcome);
      progress(fmt::format("{} {} ({:.1f} s){}{}", f.status, in->name, f.wall_s,
                           f.message.empty() ? "" : ": ", f.message));
      done.push_back(std::move(f));
    }
    if (single.empty() && multi.empty() && running.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  std::sort(done.begin(), done.end(), [](const Finished& a, const Finished& b) {
    return a.instance->serial < b.instance->serial;
  });
  if (Status s = write_outputs(done, *gpus, nccl_ranks); !s.ok()) {
    progress("cannot write the results: " + s.message());
    return kExitInternal;
  }
  if (options_.keep_work) progress("kept the scratch directory " + work_.string());
  const bool all_ok = std::all_of(done.begin(), done.end(), [&](const Finished& f) {
    return f.status == "ok" || (f.status == "skipped" && f.message.rfind("needs ", 0) == 0);
  });
  progress(fmt::format("wrote {} ({} measurements, {})", options_.out_dir.string(), done.size(),
                       all_ok ? "all ok" : "some failed or were skipped: see run.json"));
  if (interrupted) return kExitInternal;
  return all_ok ? kExitOk : kExitInternal;
}

}  // namespace

std::vector<std::string> worker_argv(const std::string& self_exe, FactKind kind, int index,
                                     const std::filesystem::path& result,
                                     std::chrono::milliseconds timeout) {
  return {self_exe,    "worker",
          "--kind",    std::string(fact_kind_name(kind)),
          "--index",   std::to_string(index),
          "--result",  result.string(),
          "--timeout", std::to_string(std::max<std::int64_t>(1, timeout.count() / 1000))};
}

int run_facts(const FactsOptions& options) { return Runner(options).run(); }

Result<int> count_gpus_in_child(const std::string& self_exe, const std::filesystem::path& work_dir,
                                std::chrono::milliseconds timeout) {
  const std::filesystem::path result = work_dir / "count_gpus.json";
  JobSpec spec;
  spec.name = "count GPUs";
  spec.timeout = timeout;
  spec.children.push_back(ChildSpec{"GPU count",
                                    worker_argv(self_exe, FactKind::kCountGpus, 0, result, timeout),
                                    environment_with({}, {})});
  const JobOutcome outcome = run_job(std::move(spec), kKillGrace);
  auto text = read_file(result, InputKind::kTrace);
  const json rank = text.ok() ? json::parse(*text, nullptr, false) : json();
  if (!rank.is_object() || !ok_field(rank)) {
    const std::string why =
        rank.is_object()
            ? error_field(rank)
            : "the counting process " +
                  (outcome.children.empty() ? outcome.message : describe_exit(outcome.children[0]));
    return internal_error("could not count the GPUs: " + why);
  }
  const auto data = rank.find("data");
  if (data == rank.end() || !data->contains("count") || !(*data)["count"].is_number_integer()) {
    return internal_error("could not count the GPUs: the worker's result has no count");
  }
  return (*data)["count"].get<int>();
}

}  // namespace gpumem::probe
