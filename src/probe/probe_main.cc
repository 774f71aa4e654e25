// gpumem-probe: runs gpumem's Device and Comm seams on real NVIDIA GPUs (README.md here).
//
//   gpumem-probe selftest --out DIR    every seam call once per rank, a JSON per rank
//   gpumem-probe facts --out DIR       the basic constants (context, malloc rounding, NCCL,
//                                      IPC, graphs, cuBLAS), one JSON per group
//   gpumem-probe run SCENARIO --out DIR  an engine model's start-up on real GPUs, a trace
//                                      per rank (scenario_run.h)
//
// Ranks: with no launcher variables the probe starts one child per visible GPU itself;
// under torchrun (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) or mpirun
// (OMPI_COMM_WORLD_* or PMI_*, plus MASTER_ADDR/MASTER_PORT) each process is one rank.
// `facts` always launches its own workers, one fresh process per measurement.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "core/exit_codes.h"
#include "probe/facts_runner.h"
#include "probe/facts_worker.h"
#include "probe/host_exchange.h"
#include "probe/rank_env.h"
#include "probe/scenario_run.h"
#include "probe/selftest.h"
#include "probe/supervisor.h"

namespace gpumem::probe {
namespace {

// Set before anything can load NCCL, and inherited by every child: NVLink multicast stays
// off (cuMulticastCreate can take the shared GPUs out of service), and CUDA numbers devices in
// PCI order, which is NVML's order, so that a rank finds its GPU in NVML before any CUDA call.
void prepare_environment() {
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  if (nvls != nullptr && std::string(nvls) != "0") {
    std::fprintf(stderr,
                 "gpumem-probe: NCCL_NVLS_ENABLE=%s replaced by 0: the probe never enables "
                 "NVLink multicast\n",
                 nvls);
  }
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (std::getenv("CUDA_DEVICE_ORDER") == nullptr) ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
}

std::chrono::milliseconds seconds(int s) { return std::chrono::milliseconds(1000LL * s); }

// `selftest` as its own launcher: one child per GPU, each a rank of this same command.
int launch_selftest(const std::string& out, int nproc, int timeout_s) {
  install_stop_handlers();
  auto self = self_executable();
  if (!self.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", self.status().message().c_str());
    return kExitInternal;
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (nproc <= 0) {
    auto n = count_gpus_in_child(*self, out, seconds(timeout_s));
    std::filesystem::remove(std::filesystem::path(out) / "count_gpus.json", ec);
    if (!n.ok()) {
      std::fprintf(stderr, "gpumem-probe: %s\n", n.status().message().c_str());
      return kExitInternal;
    }
    nproc = *n;
  }
  if (nproc < 1) {
    std::fprintf(stderr, "gpumem-probe: CUDA sees no GPU\n");
    return kExitInternal;
  }
  auto port = find_free_port();
  if (!port.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", port.status().message().c_str());
    return kExitInternal;
  }
  JobSpec job;
  job.name = "selftest";
  // Each rank bounds its own waits by the timeout; the whole run gets a few of them.
  job.timeout = seconds(timeout_s) * 3;
  for (int r = 0; r < nproc; ++r) {
    const std::vector<std::pair<std::string, std::string>> set = {
        {"RANK", std::to_string(r)},
        {"WORLD_SIZE", std::to_string(nproc)},
        {"LOCAL_RANK", std::to_string(r)},
        {"MASTER_ADDR", "127.0.0.1"},
        {"MASTER_PORT", std::to_string(*port)},
        {std::string(kProbeLauncherVar), "fork"}};
    job.children.push_back(
        ChildSpec{fmt::format("rank {}", r),
                  {*self, "selftest", "--out", out, "--timeout", std::to_string(timeout_s)},
                  environment_with(set, {})});
  }
  std::fprintf(stderr, "gpumem-probe: starting %d rank(s), MASTER_PORT %d\n", nproc, *port);
  const JobOutcome outcome = run_job(std::move(job), std::chrono::milliseconds(5000));
  if (outcome.state != JobState::kOk) {
    std::fprintf(stderr, "gpumem-probe: selftest %s: %s\n",
                 std::string(job_state_name(outcome.state)).c_str(), outcome.message.c_str());
    return kExitInternal;
  }
  std::fprintf(stderr, "gpumem-probe: selftest passed on %d rank(s) in %.1f s; results in %s\n",
               nproc, outcome.wall_s, out.c_str());
  return kExitOk;
}

std::optional<FactGroup> group_named(const std::string& name) {
  for (FactGroup g : kFactGroups) {
    if (fact_group_name(g) == name) return g;
  }
  return std::nullopt;
}

}  // namespace

int probe_main(int argc, char** argv) {
  prepare_environment();
  CLI::App app{"gpumem-probe: gpumem's Device and Comm seams on real NVIDIA GPUs"};
  app.require_subcommand(1);

  std::string out;
  int timeout_s = 120;
  int nproc = 0;
  CLI::App* selftest = app.add_subcommand("selftest", "run every seam call once per rank");
  selftest->add_option("--out", out, "directory for selftest.rank<R>.json")->required();
  selftest->add_option("--nproc", nproc,
                       "ranks to start when the probe launches them (default: one per GPU)");
  selftest->add_option("--timeout", timeout_s, "seconds any one wait may take")
      ->capture_default_str();

  int budget_s = 285;
  int nccl_ranks = 0;
  std::vector<std::string> only;
  bool keep_work = false;
  CLI::App* facts =
      app.add_subcommand("facts", "measure the basic constants, one JSON file per group");
  facts->add_option("--out", out, "directory for the JSON files")->required();
  facts->add_option("--timeout", timeout_s, "seconds one measurement may take")
      ->capture_default_str();
  facts
      ->add_option("--budget", budget_s,
                   "seconds for the whole run; later measurements are skipped")
      ->capture_default_str();
  facts->add_option("--nccl-ranks", nccl_ranks,
                    "ranks of the NCCL measurements (default: min(GPUs, 2))");
  facts
      ->add_option("--only", only,
                   "groups to measure: provenance context malloc ipc nccl graphs cublas")
      ->delimiter(',');
  facts->add_flag("--keep-work", keep_work,
                  "keep the scratch directory (worker results, NCCL logs)");

  std::string kind;
  int index = 0;
  std::string result;
  CLI::App* worker = app.add_subcommand("worker", "one measurement of `facts` (started by it)");
  worker->group("");  // internal: not listed in --help
  worker->add_option("--kind", kind)->required();
  worker->add_option("--index", index);
  worker->add_option("--result", result)->required();
  worker->add_option("--timeout", timeout_s);

  ScenarioRunOptions run_options;
  const char* model_dir_env = std::getenv("GPUMEM_MODEL_DIR");
  run_options.model_dir = model_dir_env != nullptr ? model_dir_env : "model";
  CLI::App* run = app.add_subcommand(
      "run", "run a scenario's start-up on this machine's GPUs, a trace per rank");
  run->add_option("scenario", run_options.scenario, "scenario YAML file")->required();
  run->add_option("--out", out, "directory for trace.rank<R>.json")->required();
  run->add_option("--model-dir", run_options.model_dir,
                  "catalog directory with llm/ and gpu/ (default: $GPUMEM_MODEL_DIR or ./model)");
  run->add_option("--timeout", timeout_s, "seconds any one wait may take")->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  if (*run) {
    run_options.out_dir = out;
    run_options.timeout = seconds(timeout_s);
    auto env = rank_env_from(process_env());
    if (!env.ok()) {
      std::fprintf(stderr, "gpumem-probe: %s\n", env.status().message().c_str());
      return kExitBadInput;
    }
    if (env->has_value()) return run_scenario_rank(**env, run_options);
    return launch_scenario(run_options);
  }

  if (*worker) {
    auto k = fact_kind_from_name(kind);
    if (!k.ok()) {
      std::fprintf(stderr, "gpumem-probe worker: %s\n", k.status().message().c_str());
      return kExitBadInput;
    }
    return run_worker(WorkerOptions{*k, index, result, seconds(timeout_s)});
  }
  if (*facts) {
    install_stop_handlers();
    FactsOptions o;
    o.out_dir = out;
    auto self = self_executable();
    if (!self.ok()) {
      std::fprintf(stderr, "gpumem-probe: %s\n", self.status().message().c_str());
      return kExitInternal;
    }
    o.self_exe = *self;
    o.job_timeout = seconds(timeout_s);
    o.budget = std::chrono::seconds(budget_s);
    o.nccl_ranks = nccl_ranks;
    o.keep_work = keep_work;
    for (const std::string& name : only) {
      auto g = group_named(name);
      if (!g) {
        std::fprintf(stderr,
                     "gpumem-probe facts: unknown group '%s' (groups: provenance context "
                     "malloc ipc nccl graphs cublas)\n",
                     name.c_str());
        return kExitBadInput;
      }
      o.groups.push_back(*g);
    }
    return run_facts(o);
  }
  // selftest: as one rank under a launcher, or as the launcher.
  auto env = rank_env_from(process_env());
  if (!env.ok()) {
    std::fprintf(stderr, "gpumem-probe: %s\n", env.status().message().c_str());
    return kExitBadInput;
  }
  if (env->has_value()) return run_selftest_rank(**env, out, seconds(timeout_s));
  return launch_selftest(out, nproc, timeout_s);
}

}  // namespace gpumem::probe

int main(int argc, char** argv) {
  // Errors are Status values below this point; an exception escaping a library (a JSON or
  // file-system corner case) still ends with a message and gpumem's internal-error code.
  try {
    return gpumem::probe::probe_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpumem-probe: internal error: %s\n", e.what());
    return gpumem::kExitInternal;
  }
}
