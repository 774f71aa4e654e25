#include "report/summary.h"

#include <fmt/format.h>

#include "core/units.h"
#include "runtime/constants_note.h"
#include "runtime/fact_ids.h"
#include "runtime/key_figures.h"

namespace gpumem {
namespace {

// The request length the concurrency is counted in: vLLM's max_model_len (as --max-model-len
// auto fitted it on the GPUs, where it did), SGLang's context_len.
std::optional<std::int64_t> max_length(const Ledger& l) {
  if (!l.gpus.empty()) {
    if (const Fact* f = l.gpus.front().fact(fact_id::kMaxModelLenFitted)) {
      if (const auto* v = std::get_if<std::int64_t>(&f->value)) return *v;
    }
  }
  for (std::string_view id : {fact_id::kMaxModelLen, fact_id::kContextLen}) {
    if (const Fact* f = l.fact(id)) {
      if (const auto* v = std::get_if<std::int64_t>(&f->value)) return *v;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string render_summary(const Ledger& l, const std::vector<std::string>& fixes) {
  const KeyFigures k = key_figures(l);
  std::string out = fmt::format(
      "{}: {} on {} x {} ({})\n", l.scenario, l.engine, l.gpus.size(), l.gpu_type,
      l.calibrated ? "calibrated: " + l.calibration : not_calibrated_note(l.calibration));
  if (k.fits && l.fit_advice && l.fit_advice->min_headroom.value() > 0) {
    // It completes, but keeps less free than --min-headroom asked for (why advice exists).
    out += "STARTS, BUT WITH LESS HEADROOM THAN ASKED\n";
    out += "  asked for " + format_mib(l.fit_advice->min_headroom) + " free at every step\n";
  } else if (k.fits) {
    out += "STARTS\n";
  } else {
    out += "DOES NOT START\n";
    if (k.failure) {
      const std::string why = k.failure->outcome == StepOutcome::kOutOfMemory
                                  ? "out of memory"
                                  : k.failure->message.substr(0, k.failure->message.find(". "));
      out += fmt::format("  GPU {} stops at {}: {}\n", k.failure->gpu, k.failure->step, why);
      if (k.failure->shortfall) {
        // Under a GiB, in MiB: "short by 0.00 GiB" would read as no shortfall at all.
        const Bytes s = *k.failure->shortfall;
        out += "  short by " + (s.value() < (1LL << 30) ? format_mib(s) : format_gib(s)) + "\n";
      }
    }
  }
  if (const Fact* assumed = l.fact(fact_id::kModelAssumed)) {
    if (const auto* text = std::get_if<std::string>(&assumed->value)) {
      out += "  model           " + *text + "\n";
    }
  }
  if (k.kv_tokens) {
    out += fmt::format("  KV cache        {} tokens", format_count(*k.kv_tokens));
    if (k.kv_bytes) out += " (" + format_mib(*k.kv_bytes) + " per GPU)";
    if (k.replicas > 1 && k.kv_tokens_total) {
      out += fmt::format(" per replica; {} in all over {} data-parallel replicas",
                         format_count(*k.kv_tokens_total), k.replicas);
    }
    out += "\n";
  }
  if (k.max_concurrency) {
    out +=
        fmt::format("  concurrency     {:.2f} requests of the maximum length", *k.max_concurrency);
    if (std::optional<std::int64_t> len = max_length(l)) {
      out += " (" + format_count(*len) + " tokens)";
    }
    if (k.max_running_requests) {
      out += "; " + format_count(*k.max_running_requests) + " running at most";
      if (k.replicas > 1) out += " per replica";
    }
    out += "\n";
  }
  // Where the headroom is smallest: the GPU and step of min(total - peak).
  const GpuLedger* tight_gpu = nullptr;
  const LedgerStep* tight_step = nullptr;
  for (const GpuLedger& g : l.gpus) {
    for (const LedgerStep& s : g.steps) {
      if (tight_step == nullptr ||
          g.total - s.peak_used < tight_gpu->total - tight_step->peak_used) {
        tight_gpu = &g;
        tight_step = &s;
      }
    }
  }
  if (k.min_headroom && tight_step != nullptr) {
    out += fmt::format("  headroom        {} free at the tightest step (GPU {}, {})\n",
                       format_mib(*k.min_headroom), tight_gpu->rank, tight_step->name);
  }
  if (!fixes.empty()) {
    out += "  would start with (each alone, simulated):\n";
    for (const std::string& f : fixes) out += "    " + f + "\n";
  } else if (l.fit_advice) {
    out += "  no single flag of the fit advice makes it start";
    if (l.fit_advice->min_headroom.value() > 0) {
      out += " with " + format_mib(l.fit_advice->min_headroom) + " free";
    }
    out += "\n";
  }
  return out;
}

}  // namespace gpumem
