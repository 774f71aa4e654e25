#include "picture/timeline.h"

#include <cmath>

#include "picture/chrome_trace.h"

namespace gpumem {
namespace {

using Json = ChromeTrace::Json;

constexpr int kStepsThread = 1;
constexpr std::int64_t kSimulatedStepUs = 1000;

double to_mib(Bytes b) { return static_cast<double>(b.value()) / (1 << 20); }

std::int64_t to_us(double seconds) { return std::llround(seconds * 1e6); }

// Predicted process of rank r is 2r + 1, its measured twin 2r + 2: the pair sits together.
int predicted_pid(int rank) { return 2 * rank + 1; }
int measured_pid(int rank) { return 2 * rank + 2; }

struct Span {
  std::int64_t start_us = 0;
  std::int64_t dur_us = 0;
};

// Where each of `gpu`'s steps sits in time: on the measured clock of `trace` when given
// (origin: the start of its first step), else one simulated millisecond per step. A step the
// trace lacks follows the previous one; starts never go back, so tracks stay monotonic.
std::vector<Span> step_spans(const GpuLedger& gpu, const Trace* trace) {
  std::vector<Span> spans;
  spans.reserve(gpu.steps.size());
  std::int64_t end = 0;
  for (const LedgerStep& step : gpu.steps) {
    Span s{end, kSimulatedStepUs};
    if (trace != nullptr && !trace->steps.empty()) {
      if (const TraceStep* m = trace->step(step.name)) {
        s.start_us = std::max(end, to_us(m->start_s - trace->steps.front().start_s));
        s.dur_us = std::max<std::int64_t>(1, to_us(m->wall_s));
      }
    }
    end = s.start_us + s.dur_us;
    spans.push_back(s);
  }
  return spans;
}

Json step_args(const LedgerStep& step) {
  Json change = Json::object();
  for (size_t c = 0; c < kCategoryCount; ++c) {
    if (step.delta_by_category[c].value() != 0) {
      change[std::string(kCategoryNames[c])] = to_mib(step.delta_by_category[c]);
    }
  }
  Json args = {{"outcome", std::string(outcome_name(step.outcome))},
               {"change by category (MiB)", change},
               {"used after (MiB)", to_mib(step.used_after)},
               {"free after (MiB)", to_mib(step.free_after)},
               {"peak used (MiB)", to_mib(step.peak_used)},
               {"torch allocated after (MiB)", to_mib(step.allocated_after)},
               {"torch reserved after (MiB)", to_mib(step.reserved_after)}};
  if (!step.message.empty()) args["message"] = step.message;
  if (!step.log_lines.empty()) args["log"] = step.log_lines;
  return args;
}

void add_predicted_gpu(ChromeTrace& out, const GpuLedger& gpu, const Trace* trace) {
  const int pid = predicted_pid(gpu.rank);
  out.add_process(pid, "GPU " + std::to_string(gpu.rank) + " predicted", pid);
  out.add_thread(pid, kStepsThread, "start-up steps");
  std::array<Bytes, kCategoryCount> held{};
  Bytes used = gpu.used_before;
  for (size_t c = 0; c < kCategoryCount; ++c) {
    out.add_counter(pid, std::string(kCategoryNames[c]), 0, 0);
  }
  out.add_counter(pid, "used", 0, to_mib(used));
  out.add_counter(pid, "free", 0, to_mib(gpu.total - used));
  const std::vector<Span> spans = step_spans(gpu, trace);
  for (size_t i = 0; i < gpu.steps.size(); ++i) {
    const LedgerStep& step = gpu.steps[i];
    const Span& span = spans[i];
    const std::int64_t end = span.start_us + span.dur_us;
    out.add_slice(pid, kStepsThread, step.name, span.start_us, span.dur_us, step_args(step));
    // A transient peak (activations of a profiling forward, a capture's scratch) shows as a
    // spike in the middle of its step.
    if (step.peak_used > std::max(used, step.used_after) && span.dur_us > 1) {
      out.add_counter(pid, "used", span.start_us + span.dur_us / 2, to_mib(step.peak_used));
    }
    if (step.outcome == StepOutcome::kOutOfMemory) {
      out.add_instant(pid, kStepsThread, "out of memory", end,
                      {{"step", step.name},
                       {"requested (MiB)", to_mib(step.requested)},
                       {"free at failure (MiB)", to_mib(step.free_at_failure)}});
    }
    for (size_t c = 0; c < kCategoryCount; ++c) {
      held[c] += step.delta_by_category[c];
      out.add_counter(pid, std::string(kCategoryNames[c]), end, to_mib(held[c]));
    }
    used = step.used_after;
    out.add_counter(pid, "used", end, to_mib(used));
    out.add_counter(pid, "free", end, to_mib(step.free_after));
    out.add_counter(pid, "torch allocated", end, to_mib(step.allocated_after));
    out.add_counter(pid, "torch reserved", end, to_mib(step.reserved_after));
  }
}

void add_measured_rank(ChromeTrace& out, const Trace& trace) {
  const int pid = measured_pid(trace.rank);
  out.add_process(pid, "GPU " + std::to_string(trace.rank) + " measured (" + trace.gpu_name + ")",
                  pid);
  out.add_thread(pid, kStepsThread, "start-up steps");
  std::array<bool, kCategoryCount> owns{};
  for (const TraceStep& step : trace.steps) {
    for (size_t c = 0; c < kCategoryCount; ++c) owns[c] = owns[c] || step.own_after[c].value();
  }
  const double origin = trace.steps.empty() ? 0 : trace.steps.front().start_s;
  std::int64_t last_end = 0;
  for (const TraceStep& step : trace.steps) {
    const std::int64_t start = std::max(last_end, to_us(step.start_s - origin));
    const std::int64_t dur = std::max<std::int64_t>(1, to_us(step.wall_s));
    const std::int64_t end = start + dur;
    last_end = end;
    Json args = {{"outcome", step.outcome}, {"wall (s)", step.wall_s}};
    if (step.taken) args["taken (MiB)"] = to_mib(*step.taken);
    if (step.free_after) args["free after (MiB)"] = to_mib(*step.free_after);
    out.add_slice(pid, kStepsThread, step.name, start, dur, std::move(args));
    if (step.outcome == "out_of_memory") {
      out.add_instant(pid, kStepsThread, "out of memory", end, {{"step", step.name}});
    }
    if (step.free_after && trace.cuda_total) {
      out.add_counter(pid, "used", end, to_mib(*trace.cuda_total - *step.free_after));
      out.add_counter(pid, "free", end, to_mib(*step.free_after));
    }
    out.add_counter(pid, "torch allocated", end, to_mib(step.allocated_after));
    out.add_counter(pid, "torch reserved", end, to_mib(step.reserved_after));
    for (size_t c = 0; c < kCategoryCount; ++c) {
      if (owns[c]) {
        out.add_counter(pid, "own " + std::string(kCategoryNames[c]), end,
                        to_mib(step.own_after[c]));
      }
    }
  }
}

void describe(ChromeTrace& out, const Ledger& ledger, const std::string& clock) {
  out.set_metadata("scenario", ledger.scenario);
  out.set_metadata("engine", ledger.engine);
  out.set_metadata("gpu type", ledger.gpu_type);
  out.set_metadata("calibration",
                   ledger.calibration + (ledger.calibrated ? "" : " (uncalibrated)"));
  out.set_metadata("clock", clock);
}

}  // namespace

std::string predicted_timeline(const Ledger& ledger) {
  ChromeTrace out;
  describe(out, ledger, "simulated: one millisecond per step (the simulator has no clock)");
  for (const GpuLedger& gpu : ledger.gpus) add_predicted_gpu(out, gpu, nullptr);
  return out.to_json();
}

std::string compared_timeline(const Ledger& ledger, const std::vector<Trace>& traces) {
  ChromeTrace out;
  describe(out, ledger,
           "measured: the probe run's monotonic clock from its first step; a predicted step "
           "takes the time of the measured step of the same name");
  for (const Trace& trace : traces) {
    for (const GpuLedger& gpu : ledger.gpus) {
      if (gpu.rank == trace.rank) add_predicted_gpu(out, gpu, &trace);
    }
    add_measured_rank(out, trace);
  }
  return out.to_json();
}

}  // namespace gpumem
