// `gpumem sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--best largest:KEY]
// [--min-headroom SIZE]`: the scenario simulated at every point of the grid the --vary
// arguments span, on every core, one row per point as a table, CSV or JSON; with --best, only
// the point with the largest or smallest KEY among those that start (sweep/best.h). Exit code
// 0 when some point starts (with the headroom asked for), 1 when none does, 2 on bad input.
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "catalog/scenario.h"
#include "cli/calibration_choice.h"
#include "cli/command.h"
#include "cli/headroom_option.h"
#include "cli/output_guard.h"
#include "cli/scenario_input.h"
#include "cli/workspace.h"
#include "core/atomic_file.h"
#include "engine/engine_model.h"
#include "sweep/best.h"
#include "sweep/report.h"
#include "sweep/sweep.h"

namespace gpumem::cli {
namespace {

// An output that cannot be written (or may not be replaced): said, exit 2.
ExitCode fail_output(const Status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  return kExitBadInput;
}

// A bar on stderr, drawn only when the sweep has run for a second and stderr is a terminal.
class ProgressBar {
 public:
  ProgressBar() : start_(std::chrono::steady_clock::now()), terminal_(isatty(STDERR_FILENO)) {}

  void update(size_t done, size_t total) {
    if (!terminal_) return;
    if (done == total) {
      if (drawn_) std::fputs("\r\033[K", stderr);
      drawn_ = false;
      return;
    }
    if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) return;
    constexpr size_t kWidth = 40;
    const size_t filled = total == 0 ? 0 : done * kWidth / total;
    std::fprintf(stderr, "\rsweep [%s%s] %3zu%% %zu/%zu points", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), total == 0 ? 0 : done * 100 / total,
                 done, total);
    std::fflush(stderr);
    drawn_ = true;
  }

 private:
  std::chrono::steady_clock::time_point start_;
  bool terminal_;
  bool drawn_ = false;
};

// Two axes varying the same key would make the grid contradict itself.
void check_distinct(const std::vector<sweep::Axis>& axes, Diagnostics& diags) {
  for (size_t a = 0; a < axes.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      const bool same =
          axes[a].kind == axes[b].kind &&
          (axes[a].name.empty() ? axes[a].key == axes[b].key : axes[a].name == axes[b].name);
      if (same) {
        diags.error(axes[a].loc, "'" + axes[a].key + "' is varied already by --vary " +
                                     std::to_string(axes[b].loc.line));
      }
    }
  }
}

}  // namespace

Command sweep_command() {
  return {
      "sweep", "simulate a scenario over a grid of flag, hardware or environment values",
      [](CLI::App& app, const GlobalOptions& global) {
        struct Options {
          bool download = false;
          ScenarioInput input;
          std::vector<std::string> vary;
          std::string best;
          std::string format = "table";
          int threads = 0;
          std::string output;
          std::string calibration;
          std::string min_headroom;
        };
        auto o = std::make_shared<Options>();
        add_download_flag(app, o->download);
        add_scenario_input(app, o->input);
        app.add_option("--vary", o->vary,
                       "KEY=V1,V2,... or KEY=A..B:STEP; KEY is an engine flag (--name), "
                       "hardware.gpu, hardware.count, hardware.nodes, "
                       "hardware.interconnect or an environment variable; repeat for a "
                       "grid")
            ->required();
        app.add_option("--best", o->best,
                       "largest:KEY or smallest:KEY: print only the point that starts with the "
                       "largest or smallest KEY: kv_tokens (tokens), kv_tokens_total "
                       "(total_tokens), max_running_requests (requests), min_headroom "
                       "(headroom) or a numeric --vary key; KEY alone is largest:KEY");
        add_min_headroom_option(app, o->min_headroom);
        app.add_option("--format", o->format, "table, csv or json")
            ->check(CLI::IsMember({"table", "csv", "json"}));
        app.add_option("-j,--jobs", o->threads, "threads (default: every core)");
        app.add_option("-o,--output", o->output, "write to this file instead of stdout");
        app.add_option("--calibration", o->calibration,
                       "calibration entry (default: the one matching each GPU)");
        return [o, &global]() -> ExitCode {
          Diagnostics diags;
          if (!output_allowed("-o", o->output, {o->input.file}, diags)) {
            return report_diagnostics(diags);
          }
          std::optional<Workspace> ws = open_workspace(global, diags, o->download);
          if (!ws) return report_diagnostics(diags);
          std::optional<Scenario> base = load_scenario_input(*ws, o->input, global, diags);
          if (!base || !diags.empty()) return report_diagnostics(diags);
          if (engine_of(*base, diags) == nullptr) return report_diagnostics(diags);
          std::vector<sweep::Axis> axes;
          for (size_t i = 0; i < o->vary.size(); ++i) {
            std::optional<sweep::Axis> axis =
                sweep::parse_axis(o->vary[i], static_cast<int>(i) + 1, diags);
            if (axis && sweep::check_axis(*axis, *base, ws->gpus, diags)) {
              axes.push_back(std::move(*axis));
            }
          }
          check_distinct(axes, diags);
          std::optional<sweep::BestBy> best;
          // A key among axes that were refused would only repeat their errors.
          if (!o->best.empty() && diags.empty()) best = sweep::parse_best(o->best, axes, diags);
          const std::optional<Bytes> min_headroom = read_min_headroom(o->min_headroom, diags);
          if (o->threads < 0) {
            diags.error({"-j", 0, 0}, "the number of threads must be positive, got " +
                                          std::to_string(o->threads));
          }
          if (!diags.empty()) return report_diagnostics(diags);
          if (!sweep::grid_size(axes)) {
            diags.error({"--vary", 0, 0}, "the grid has more than " +
                                              std::to_string(sweep::kMaxGridPoints) + " points");
            return report_diagnostics(diags);
          }
          // The constants `gpumem simulate` would choose, for every GPU the grid reaches.
          SimulationCache cache;
          sweep::SweepInputs inputs{ws->gpus, ws->models, {}, &cache, *min_headroom};
          std::vector<std::string> gpus = {base->hardware.gpu};
          for (const sweep::Axis& a : axes) {
            if (a.kind == sweep::AxisKind::kGpu) gpus = a.values;
          }
          for (const std::string& g : gpus) {
            Scenario on_gpu = *base;
            on_gpu.hardware.gpu = g;
            std::optional<SimulationConstants> c =
                choose_calibration(*ws, on_gpu, o->calibration, diags);
            if (!c) return report_diagnostics(diags);
            inputs.constants.emplace_back(ws->gpus.find(g)->name, std::move(*c));
          }
          const sweep::Grid grid(std::move(axes));
          ProgressBar bar;
          sweep::SweepOptions options;
          options.threads =
              o->threads > 0 ? o->threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
          options.progress = [&bar](size_t done, size_t total) { bar.update(done, total); };
          // Rows go to standard output, or to a temporary renamed over -o's file once the last
          // is written, so a failed sweep leaves no partial file.
          std::optional<StagedFile> file;
          if (!o->output.empty()) {
            Result<StagedFile> opened = StagedFile::open(o->output);
            if (!opened.ok()) return fail_output(opened.status());
            file.emplace(std::move(opened.value()));
          }
          const sweep::TextOut out = [&file](std::string_view text) -> Status {
            if (file) return file->append(text);
            if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
              return io_error(std::string("standard output: ") + std::strerror(errno));
            }
            return {};
          };
          sweep::SweepHeading heading{base->name, &grid, best ? best->text() : "", *min_headroom};
          Result<std::unique_ptr<sweep::SweepWriter>> writer =
              sweep::sweep_writer(o->format, std::move(heading), out);
          if (!writer.ok()) return fail_output(writer.status());
          std::optional<sweep::BestPoint> best_point;
          if (best) best_point.emplace(grid, *best);
          bool any_starts = false;
          Status written;
          const sweep::SweepRun run = sweep::run_sweep(
              *base, grid, inputs, options, [&](size_t p, const sweep::PointResult& r) {
                any_starts = any_starts || r.status == sweep::PointStatus::kFits;
                (*writer)->count(r);
                if (best_point) {
                  best_point->offer(p, r);
                } else if (written.ok()) {
                  written = (*writer)->row(p, r);
                }
              });
          if (!run.thread_failure.empty()) {
            std::fprintf(stderr, "gpumem sweep: ran on %d of %d threads: %s\n", run.threads,
                         options.threads, run.thread_failure.c_str());
          }
          if (written.ok() && best_point && best_point->point()) {
            written = (*writer)->row(*best_point->point(), best_point->result());
          }
          if (written.ok()) written = (*writer)->finish();
          if (written.ok() && file) written = file->commit();
          if (!written.ok()) return fail_output(written);
          if (best && !best_point->point()) {
            std::fprintf(stderr, "no point of the grid starts\n");
          }
          return any_starts ? kExitOk : kExitDoesNotFit;
        };
      }};
}

}  // namespace gpumem::cli
