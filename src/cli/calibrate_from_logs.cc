#include "cli/calibrate_from_logs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "calib/calibration_file.h"
#include "calib/log_fit.h"
#include "calib/parameters.h"
#include "cli/calibration_choice.h"
#include "cli/output_guard.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "core/directory.h"
#include "core/file_name.h"
#include "core/python_format.h"
#include "core/spelling.h"
#include "explain/log_header.h"
#include "explain/log_reader.h"
#include "explain/version_choice.h"

namespace gpumem::cli {
namespace {

namespace fs = std::filesystem;

// The log files the inputs name: a file as given, a directory's *.log files in name order.
std::vector<std::string> log_files(const std::vector<std::string>& inputs, Diagnostics& diags) {
  std::vector<std::string> out;
  for (const std::string& input : inputs) {
    if (is_regular_file_path(input)) {
      out.push_back(input);
      continue;
    }
    if (!is_directory_path(input)) {
      diags.error({}, input + ": no such log file or directory");
      continue;
    }
    Result<std::vector<fs::path>> entries = list_directory(input);
    if (!entries.ok()) {
      diags.error({}, entries.status().message());
      continue;
    }
    std::vector<std::string> found;
    for (const fs::path& p : *entries) {
      if (p.extension() == ".log") found.push_back(p.string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) diags.error({}, input + ": the directory holds no *.log file");
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::string stem_of(const std::string& file) { return fs::path(file).stem().string(); }

double to_gib(Bytes b) {
  return static_cast<double>(b.value()) / static_cast<double>(gib(1).value());
}

std::string signed_gib(Bytes b) { return (b.value() >= 0 ? "+" : "") + python_fixed(to_gib(b), 2); }

// Median and largest |error| of the figures `pick` selects, at `field`.
struct Errors {
  int n = 0;
  Bytes median;
  Bytes max;
};

template <typename Pick>
Errors errors(const std::vector<ContextFigure>& figures, Bytes ContextFigure::*field, Pick pick) {
  std::vector<std::int64_t> e;
  for (const ContextFigure& f : figures) {
    if (pick(f)) e.push_back(std::llabs((f.*field - f.used_logged).value()));
  }
  Errors out;
  out.n = static_cast<int>(e.size());
  if (e.empty()) return out;
  std::sort(e.begin(), e.end());
  const size_t m = e.size() / 2;
  out.median = bytes(e.size() % 2 == 1 ? e[m] : (e[m - 1] + e[m]) / 2);
  out.max = bytes(e.back());
  return out;
}

std::string errors_text(const Errors& e) {
  if (e.n == 0) return "no figures";
  return fmt::format("{} figure{}, median |error| {} GiB, max {} GiB", e.n, e.n == 1 ? "" : "s",
                     python_fixed(to_gib(e.median), 2), python_fixed(to_gib(e.max), 2));
}

std::string role_text(const ContextFigure& f) {
  switch (f.role) {
    case FigureRole::kHeldOut:
      return "held out";
    case FigureRole::kChecked:
      return "checked (communicators in it)";
    case FigureRole::kFitted:
      break;
  }
  return f.derivative == 0 ? "not moved by the context" : "fitted";
}

std::string report_text(const LogCalibrationOptions& o, const GpuSpec& gpu,
                        const SimulationConstants& start, const LogFitOutcome& fit,
                        const Errors& fitted, const Errors& held, const Errors& checked,
                        const Errors& start_fitted) {
  std::string text = fmt::format(
      "# Log calibration: {}\n\nWritten by `gpumem calibrate --from-logs`; do not edit by hand. "
      "Constants: `{}`.\n\n"
      "The CUDA context of {} fitted to the memory that public start-up logs show in use "
      "before the weights (T - F: SGLang's \"Load weight begin. avail mem=F\", vLLM's \"Free "
      "memory on device (F/T GiB) on startup\"; T is the CUDA total the line prints, else the "
      "catalog's; less SGLang's \"Init torch distributed ends. mem usage=D\" where the rank "
      "prints it), each start-up replayed from scratch. Started from {}.\n\n"
      "- context: {} ({}) fitted, was {} ({})\n"
      "- fitted: {} (with the start constants: {})\n- held out: {}\n"
      "- checked, several GPUs without SGLang's D (the communicators in it): {}\n"
      "- rounds: {}\n\n",
      gpu.name, o.output, gpu.name, start.name, format_bytes(fit.fitted_context),
      format_mib(fit.fitted_context), format_bytes(fit.start_context),
      format_mib(fit.start_context), errors_text(fitted), errors_text(start_fitted),
      errors_text(held), errors_text(checked), fit.rounds);
  text +=
      "| log | start-up | line | GPU | figure | logged | in use, logged | start | fitted | "
      "role | model replayed |\n|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|\n";
  for (const ContextFigure& f : fit.figures) {
    const std::string logged =
        python_fixed(f.logged_gib, 2) +
        (f.logged_total_gib ? "/" + python_fixed(*f.logged_total_gib, 2) : std::string()) + " GiB" +
        (f.logged_distributed_gib ? ", D " + python_fixed(*f.logged_distributed_gib, 2) + " GiB"
                                  : std::string());
    text += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} GiB | {} GiB ({}) | {} GiB ({}) | {} | {} |\n",
        stem_of(f.file), f.startup, f.line, f.gpu, quantity_name(f.quantity), logged,
        python_fixed(to_gib(f.used_logged), 2), python_fixed(to_gib(f.used_start), 2),
        signed_gib(f.used_start - f.used_logged), python_fixed(to_gib(f.used_fitted), 2),
        signed_gib(f.used_fitted - f.used_logged), role_text(f), f.model);
  }
  if (!fit.left_out.empty()) {
    text += "\nLeft out (start-ups on " + gpu.name + " that print memory before the weights):\n\n";
    for (const LeftOutStartup& l : fit.left_out) {
      text += fmt::format("- {} start-up {} (line {}): {}\n", stem_of(l.file), l.startup,
                          l.first_line, l.why);
    }
  }
  return text;
}

}  // namespace

ExitCode calibrate_from_logs(const LogCalibrationOptions& o, const GlobalOptions& global) {
  Diagnostics diags;
  if (!output_allowed("-o", o.output, o.inputs, diags)) return report_diagnostics(diags);
  std::optional<Workspace> ws = open_workspace(global, diags);
  if (!ws) return report_diagnostics(diags);
  const GpuSpec* gpu = ws->gpus.find(o.gpu);
  if (gpu == nullptr) {
    diags.error({}, "--gpu: unknown GPU '" + o.gpu + "'" + did_you_mean(o.gpu, ws->gpus.names()));
    return report_diagnostics(diags);
  }
  if (Result<ModelEntry> m = ws->models.find(o.stand_in, diags); !m.ok()) {
    diags.error({}, "--stand-in-model: " + m.status().message());
    return report_diagnostics(diags);
  }
  const std::vector<std::string> files = log_files(o.inputs, diags);
  if (!diags.empty()) return report_diagnostics(diags);
  // A held-out name that matches no log would leave that log in the fit while the user
  // believes it held out.
  std::vector<std::string> stems;
  for (const std::string& f : files) stems.push_back(stem_of(f));
  const std::set<std::string> held(o.hold_out.begin(), o.hold_out.end());
  for (const std::string& name : held) {
    if (std::find(stems.begin(), stems.end(), name) == stems.end()) {
      diags.error(
          {}, "--hold-out '" + name + "' names no log of the inputs" + did_you_mean(name, stems));
    }
  }
  if (!diags.empty()) return report_diagnostics(diags);
  std::vector<LogCase> cases;
  int unreadable = 0;
  for (const std::string& file : files) {
    Result<std::string> text = read_file(file, InputKind::kLog);
    if (!text.ok()) {
      diags.error({}, text.status().message());
      continue;
    }
    Result<StartupLog> log = read_startup_log(*text, std::nullopt, file);
    if (!log.ok()) {
      // A directory may hold other logs; a file named on its own must be a start-up log.
      if (std::find(o.inputs.begin(), o.inputs.end(), file) != o.inputs.end()) {
        diags.error({}, log.status().message());
      }
      ++unreadable;
      continue;
    }
    Result<ExplainOverrides> header = overrides_from_header(*text, file, ws->gpus);
    if (!header.ok()) {
      diags.error({}, header.status().message());
      continue;
    }
    if (!header->engine_version.empty()) {
      const std::string wrong = given_release_error(log->engine, header->engine_version);
      if (!wrong.empty()) {
        diags.error({}, file + ": explain-args: --engine-version: " + wrong);
        continue;
      }
    }
    LogCase c{file, std::move(*log), std::move(*header), std::nullopt,
              held.contains(stem_of(file))};
    const std::string beside = (fs::path(file).replace_extension(".yaml")).string();
    if (is_regular_file_path(beside)) {
      c.scenario = load_scenario(beside, ws->gpus, diags);
      if (!c.scenario) continue;
    }
    cases.push_back(std::move(c));
  }
  if (!diags.empty()) return report_diagnostics(diags);
  // The fit starts from what the GPU is simulated with today, passing over an earlier log
  // calibration of it (the fit would start from its own answer).
  Scenario on_gpu;
  on_gpu.hardware.gpu = gpu->name;
  std::optional<SimulationConstants> start =
      choose_calibration(*ws, on_gpu, "", diags, kTorchProbe, false);
  if (!start) return report_diagnostics(diags);
  Result<LogFitOutcome> fit =
      fit_context_to_logs(cases, *gpu, *start, ws->gpus, ws->models, o.stand_in);
  if (!fit.ok()) {
    diags.error({}, fit.status().message());
    return report_diagnostics(diags);
  }
  SimulationConstants fitted_constants = *start;
  find_parameter("context")->set(fitted_constants, fit->fitted_context);
  const auto is_fitted = [](const ContextFigure& f) {
    return f.role == FigureRole::kFitted && f.derivative != 0;
  };
  const Errors fitted = errors(fit->figures, &ContextFigure::used_fitted, is_fitted);
  const Errors start_fitted = errors(fit->figures, &ContextFigure::used_start, is_fitted);
  const Errors held_errors =
      errors(fit->figures, &ContextFigure::used_fitted,
             [](const ContextFigure& f) { return f.role == FigureRole::kHeldOut; });
  const Errors checked =
      errors(fit->figures, &ContextFigure::used_fitted,
             [](const ContextFigure& f) { return f.role == FigureRole::kChecked; });
  CalibrationFile file;
  file.name = stem_of(o.output);
  file.gpu = gpu->name;
  file.probe = std::string(kLogsSource);
  // The start-ups by role: a start-up's figures share its role but for the communicators,
  // which one rank may print D for and another not.
  std::map<FigureRole, std::string> lists;
  std::set<std::tuple<std::string, int, FigureRole>> seen;
  for (const ContextFigure& f : fit->figures) {
    if (!seen.insert({f.file, f.startup, f.role}).second) continue;
    std::string& list = lists[f.role];
    list += (list.empty() ? "" : ", ") + f.file +
            (f.startup > 1 ? " start-up " + std::to_string(f.startup) : std::string());
  }
  file.provenance = {{"source", "public engine start-up logs (gpumem calibrate --from-logs)"},
                     {"fitted", "context"},
                     {"started_from", start->name},
                     {"stand_in_model", o.stand_in},
                     {"fitted_on", lists[FigureRole::kFitted]},
                     {"held_out", lists[FigureRole::kHeldOut]},
                     {"checked_with_communicators", lists[FigureRole::kChecked]}};
  for (const Parameter& p : calibration_parameters()) {
    file.constants.emplace_back(std::string(p.name), p.get(fitted_constants));
  }
  file.residuals = {{"fitted", errors_text(fitted)},
                    {"fitted_with_start_constants", errors_text(start_fitted)},
                    {"held_out", errors_text(held_errors)},
                    {"checked_with_communicators", errors_text(checked)},
                    {"left_out", std::to_string(fit->left_out.size()) + " start-ups or figures"}};
  Result<std::string> report =
      file_in_directory(o.report_dir, file.name, ".md", "the output's name");
  if (!report.ok()) {
    diags.error({}, report.status().message());
    return report_diagnostics(diags);
  }
  std::error_code ec;
  fs::create_directories(o.report_dir, ec);
  if (Status w =
          write_files_atomically({{o.output, calibration_file_text(file)},
                                  {*report, report_text(o, *gpu, *start, *fit, fitted, held_errors,
                                                        checked, start_fitted)}});
      !w.ok()) {
    diags.error({}, w.message());
    return report_diagnostics(diags);
  }
  std::printf("context: %s (was %s)\nfitted: %s\nheld out: %s\nleft out: %zu\nwrote %s and %s\n",
              format_mib(fit->fitted_context).c_str(), format_mib(fit->start_context).c_str(),
              errors_text(fitted).c_str(), errors_text(held_errors).c_str(), fit->left_out.size(),
              o.output.c_str(), report->c_str());
  if (unreadable > 0) {
    std::printf("left out: %d files that hold no start-up log gpumem can read\n", unreadable);
  }
  return report_diagnostics(diags);
}

}  // namespace gpumem::cli
