#include "explain/partial_arithmetic.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/python_format.h"
#include "sim/device_constants.h"
#include "sim/sim_device.h"

namespace gpumem::partial {

double half_unit(int decimals) { return decimals < 0 ? 0.0 : 0.5 * std::pow(10.0, -decimals); }

Bytes to_bytes(double gib) { return bytes(static_cast<std::int64_t>(std::llround(gib * kGiB))); }
double to_gib(Bytes b) { return static_cast<double>(b.value()) / kGiB; }
std::string gib(double v) { return python_fixed(v, 2) + " GiB"; }
std::string count_text(double v) { return std::to_string(std::llround(v)); }

Logged logged(const Observation* o) { return {o->value, half_unit(o->decimals), o}; }

// The first figure of `q` printed by `process`, else the first printed by any process.
std::optional<Logged> first_of(const LogRun& run, Quantity q, const std::string& process) {
  const Observation* any = nullptr;
  for (const Observation* o : run.all(q)) {
    if (o->process == process) return logged(o);
    if (any == nullptr) any = o;
  }
  if (any == nullptr) return std::nullopt;
  return logged(any);
}

std::optional<double> flag_number(const LogRun& run, std::string_view name) {
  const LoggedFlag* f = run.flag(name);
  if (f == nullptr || f->values.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(f->values.front().c_str(), &end);
  if (end == f->values.front().c_str() || *end != '\0') return std::nullopt;
  return v;
}

// "model unknown: ..." — what the partial replay leaves out, and how to get the full one.
std::string label(const RunExplanation& r) {
  const bool model = !r.implied.model_resolved;
  const bool gpu = r.implied.gpu.value.empty();
  std::string why;
  if (r.scenario_file.empty() && !r.implied.complete()) {
    if (model && gpu) {
      why =
          "model and GPU unknown: KV tokens, weights and graphs are not predicted, nor what "
          "follows from the GPU's total memory; name them with --model and --gpu to replay "
          "everything";
    } else if (model) {
      why =
          "model unknown: KV tokens, weights and graphs are not predicted; name the model with "
          "--model to replay everything";
    } else {
      why =
          "GPU unknown: what follows from the GPU's total memory is not predicted; name the "
          "GPU with --gpu to replay everything";
    }
  } else {
    why = "no full replay, see below: KV tokens, weights and graphs are not predicted";
  }
  return "the engine's budget from the log's figures (" + why + ")";
}

// What the log says about the start-up's end, against the log's own arithmetic: a failure
// of one of `kinds` is the KV cache's; another failure (its cause not printed, or an
// error after the KV cache) does not contradict a KV cache that does not fit.
void agreement(RunExplanation& r, bool fits, std::initializer_list<ProblemKind> kinds) {
  const bool kv_failure =
      std::any_of(r.run.problems.begin(), r.run.problems.end(), [&](const LoggedProblem& p) {
        return std::find(kinds.begin(), kinds.end(), p.kind) != kinds.end();
      });
  // vllm v0.7 worker.py determine_num_available_blocks: max(blocks, 0), and 0 blocks raise
  // "No available memory for the cache blocks" after the lines it prints.
  const Observation* blocks = r.run.first(Quantity::kGpuBlocks);
  const bool no_blocks = blocks != nullptr && blocks->value == 0;
  if (!fits) {
    r.diagnosis.push_back(!r.run.problems.empty() ? "agrees with the log: the start-up does not fit"
                          : no_blocks
                              ? "agrees with the log: 0 GPU blocks (line " +
                                    std::to_string(blocks->line) + "), the start-up does not fit"
                              : "MISS: the log shows no failure, its own figures say the KV "
                                "cache does not fit");
  } else if (kv_failure) {
    r.diagnosis.push_back("MISS: the log shows the KV cache failing, its own figures say it fits");
  }
}

// The log ends in a memory failure: where the log's own arithmetic decides nothing about the
// fit, the log's ending does (a partial replay is never more optimistic than the log).
bool memory_failure(const LogRun& run) {
  return std::any_of(run.problems.begin(), run.problems.end(), [](const LoggedProblem& p) {
    return p.kind != ProblemKind::kOtherError && p.kind != ProblemKind::kImbalance;
  });
}

// The release the arithmetic follows, where the log's is outside the modelled ones.
void release_caveat(RunExplanation& r) {
  const ImpliedScenario& s = r.implied;
  if (s.version_older_than_modelled) {
    r.diagnosis.push_back("the log's release is older than every release gpumem models (" +
                          s.version.value +
                          "'s rules are used): a miss may be the engine's history");
  } else if (s.version_newer_than_modelled) {
    r.diagnosis.push_back("the log's release is newer than every release gpumem models (" +
                          s.version.value +
                          "'s rules are used): a miss may be the engine's newer rules");
  }
}

// The total GPU memory CUDA reports for the implied GPU (the unlisted one where the log sizes
// a GPU the catalog lacks).
std::optional<Bytes> catalog_total(const RunExplanation& r, const ExplainContext& ctx) {
  const GpuSpec* g =
      r.implied.unlisted_gpu ? &*r.implied.unlisted_gpu : ctx.gpus.find(r.implied.gpu.value);
  if (g == nullptr) return std::nullopt;
  return cuda_total_memory(*g, DeviceConstants{});
}

// The CUDA total the log prints (an out-of-memory error's "total capacity", vLLM's summary)
// against the catalog's for the GPU named elsewhere (by --gpu or another line): a GPU chosen
// by this very total is no check of it.
void total_check(RunExplanation& r, Rows& rows, const ExplainContext& ctx) {
  const Observation* t = r.run.first(Quantity::kTotalMemory);
  if (t == nullptr || r.implied.unlisted_gpu || r.implied.gpu.value.empty() ||
      r.implied.gpu.at.line == t->line) {
    return;
  }
  const std::optional<Bytes> total = catalog_total(r, ctx);
  if (!total) return;
  rows.predict(*t, to_gib(*total), half_unit(t->decimals) + kShownHalf + ctx.tolerances.memory_gib);
  r.diagnosis.push_back("the GPU's CUDA total: " + gib(to_gib(*total)) + " for " +
                        r.implied.gpu.value + ", " + gib(t->value) + " logged (line " +
                        std::to_string(t->line) + ")");
}

}  // namespace gpumem::partial
