// Reading probe traces, checking a ledger against them, and fitting constants, on the
// traces committed under reports/probe (real H200 runs).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "calib/calibration_file.h"
#include "calib/check.h"
#include "calib/fit.h"
#include "calib/parameters.h"
#include "calib/replayed_decisions.h"
#include "calib/trace.h"
#include "core/atomic_file.h"
#include "runtime/fact_ids.h"
#include "support/scratch_dir.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

const std::string kRun = GPUMEM_SOURCE_DIR "/reports/probe/h200x1/h200x1-llama8b/run1";

const TestCatalogs& catalogs() { return test_catalogs(); }

Scenario scenario_of(const std::string& dir) {
  Diagnostics diags;
  std::optional<Scenario> s = load_scenario(dir + "/scenario.yaml", catalogs().gpus, diags);
  EXPECT_TRUE(s && diags.empty()) << diags.to_string();
  return *s;
}

// A copy of a two-GPU run in a directory of its own, to break.
std::string copy_of_two_gpu_run(const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = scratch_dir() / ("trace-dir-" + name);
  fs::remove_all(dir);
  fs::copy(GPUMEM_SOURCE_DIR "/reports/probe/h200x2/h200x2-llama8b-tp2/run1", dir);
  return dir.string();
}

void replace_in(const std::string& file, const std::string& from, const std::string& to) {
  std::string text = *read_file(file, InputKind::kTrace);
  text.replace(text.find(from), from.size(), to);
  std::ofstream(file) << text;
}

TEST(Trace, ADirectoryMustHoldExactlyOneRun) {
  std::string dir = copy_of_two_gpu_run("missing");
  std::filesystem::remove(dir + "/trace.rank1.json");
  EXPECT_EQ(read_trace_dir(dir).status().message(),
            dir + ": world size 2 but 1 rank traces; missing rank 1");

  dir = copy_of_two_gpu_run("doubled");
  std::filesystem::copy_file(dir + "/trace.rank0.json", dir + "/trace.rank1.json",
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(read_trace_dir(dir).status().message(),
            dir + "/trace.rank1.json: rank 0 is traced twice (also " + dir + "/trace.rank0.json)");

  dir = copy_of_two_gpu_run("mixed");
  replace_in(dir + "/trace.rank1.json", "\"scenario\": \"h200x2-llama8b-tp2\"",
             "\"scenario\": \"h200x2-llama70b-tp2\"");
  EXPECT_EQ(read_trace_dir(dir).status().message(),
            dir + "/trace.rank1.json: scenario 'h200x2-llama70b-tp2' disagrees with " + dir +
                "/trace.rank0.json ('h200x2-llama8b-tp2'); a trace directory holds one run");
}

TEST(Trace, TheScenarioMustRunTheTracedGpusAndCount) {
  Result<std::vector<Trace>> traces =
      read_trace_dir(GPUMEM_SOURCE_DIR "/reports/probe/h200x2/h200x2-llama8b-tp2/run1");
  ASSERT_TRUE(traces.ok());
  const Scenario one_gpu = scenario_of(kRun);
  EXPECT_EQ(check_traces_match(one_gpu, *catalogs().gpus.find("h200"), *traces).message(),
            traces->front().file + ": traced on 2 ranks, but the scenario " + one_gpu.file +
                " runs 1 GPUs");
  const Scenario two_gpu =
      scenario_of(GPUMEM_SOURCE_DIR "/reports/probe/h200x2/h200x2-llama8b-tp2/run1");
  EXPECT_EQ(check_traces_match(two_gpu, *catalogs().gpus.find("b200"), *traces).message(),
            traces->front().file + ": measured on 'NVIDIA H200', but the scenario " + two_gpu.file +
                " names b200 ('NVIDIA B200')");
  EXPECT_TRUE(check_traces_match(two_gpu, *catalogs().gpus.find("h200"), *traces).ok());
}

TEST(Trace, ReadsStepsAndMeasuredCosts) {
  Result<std::vector<Trace>> traces = read_trace_dir(kRun);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  ASSERT_EQ(traces->size(), 1u);
  const Trace& t = traces->front();
  EXPECT_EQ(t.scenario, "h200x1-llama8b");
  EXPECT_EQ(t.gpu_name, "NVIDIA H200");
  EXPECT_EQ(t.driver_version, "580.159.04");
  EXPECT_EQ(t.nccl_version, 22809);
  EXPECT_EQ(t.cuda_total->value(), 150'109'880'320);  // as the GPU catalog says
  ASSERT_EQ(t.steps.size(), 9u);
  // The context: NVML's used memory grew by 552,402,944 B (526.81 MiB) at the first CUDA call.
  EXPECT_EQ(t.step("context")->taken->value(), 552'402'944);
  EXPECT_EQ(t.step("weights")->taken->value(), 16'129'196'032);
  EXPECT_EQ(t.step("cublas")->taken->value(), 106'954'752);  // 32 MiB workspace + 70 MiB
}

TEST(Trace, RejectsNumbersThatDoNotFitInsteadOfCastingThem) {
  // Found by fuzz_trace: a rank of 1e300 was converted to an int (undefined behaviour), and
  // readings of -2^63 and 2^63-1 overflowed when subtracted. Both inputs are in its corpus.
  const std::string corpus = GPUMEM_SOURCE_DIR "/tests/fuzz/corpus/trace/";
  Result<Trace> huge_rank = read_trace(corpus + "float-rank.json");
  ASSERT_FALSE(huge_rank.ok());
  EXPECT_EQ(huge_rank.status().message(), corpus +
                                              "float-rank.json:1:806: malformed trace: expected an "
                                              "integer from 0 to 2147483647, got 1e+300");
  Result<Trace> extreme = read_trace(corpus + "extreme-bytes.json");
  ASSERT_FALSE(extreme.ok());
  EXPECT_EQ(extreme.status().message(),
            corpus +
                "extreme-bytes.json:1:2211: malformed trace: expected "
                "an integer from 0 to 9223372036854775807, got -9223372036854775808");
}

TEST(Check, WeightsAndKvAgreeExactlyAndCublasIsFlagged) {
  Result<std::vector<Trace>> traces = read_trace_dir(kRun);
  const Scenario s = scenario_of(kRun);
  const GpuSpec& gpu = *catalogs().gpus.find(s.hardware.gpu);
  Diagnostics diags;
  std::optional<Ledger> l = simulate_scenario(
      s, SimulationInputs{catalogs().gpus, catalogs().models, default_constants(gpu)}, diags);
  ASSERT_TRUE(l) << diags.to_string();
  const CheckResult r = check_ledger(*l, *traces, CheckTolerances{});
  for (const StepComparison& c : r.steps) {
    if (c.step == "weights" || c.step == "kv_cache") {
      EXPECT_EQ(c.error().value(), 0) << c.step;
    }
    if (c.step == "cublas") {
      EXPECT_EQ(c.error().value(), -(70LL << 20));  // cuBLAS's own 70 MiB is not in the defaults
    }
    if (c.step == "cuda_graphs") {
      // Published 10 KiB per node x 14,040 nodes -> a 138 MiB pool, of which the context
      // already holds 2 MiB: 136 MiB predicted; H200 took 38 MiB.
      EXPECT_EQ(c.error().value(), 98LL << 20);
    }
  }
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failures.front(), "largest step error 98.00 MiB exceeds 32.00 MiB");
}

TEST(Check, StatedUncertaintyWidensOnlyItsStep) {
  // vLLM 0.21's graph estimate multiplies 2 MiB readings by 50 captures per mode; on this H200
  // run the KV cache came out 64 MiB below the prediction, inside the stated 202 MiB.
  const std::string run = GPUMEM_SOURCE_DIR "/reports/probe/h200x1/h200x1-llama8b-vllm/run1";
  Result<std::vector<Trace>> traces = read_trace_dir(run);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Scenario s = scenario_of(run);
  const GpuSpec& gpu = *catalogs().gpus.find(s.hardware.gpu);
  Diagnostics diags;
  std::optional<CalibrationFile> file = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(file) << diags.to_string();
  std::optional<Ledger> l = simulate_scenario(
      s, SimulationInputs{catalogs().gpus, catalogs().models, constants_from(*file, gpu)}, diags);
  ASSERT_TRUE(l) << diags.to_string();
  std::vector<Fact>& facts = l->gpus.front().facts;
  auto uncertainty = std::find_if(facts.begin(), facts.end(), [](const Fact& f) {
    return f.id == fact_id::step_uncertainty("kv_cache");
  });
  ASSERT_NE(uncertainty, facts.end());
  EXPECT_EQ(std::get<Bytes>(uncertainty->value).value(), 202LL << 20);

  CheckResult r = check_ledger(*l, *traces, CheckTolerances{});
  EXPECT_TRUE(r.passed()) << r.failures.front();
  EXPECT_EQ(r.max_abs_error.value(), 64LL << 20);

  uncertainty->value = mib(16);
  r = check_ledger(*l, *traces, CheckTolerances{});
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures.front(),
            "GPU 0: step 'kv_cache' off by 64.00 MiB, beyond 32.00 MiB plus its stated "
            "uncertainty 16.00 MiB");

  facts.erase(uncertainty);
  r = check_ledger(*l, *traces, CheckTolerances{});
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures.front(), "largest step error 64.00 MiB exceeds 32.00 MiB");
}

TEST(Fit, RecoversContextAndCublasFromRepeatedRuns) {
  std::vector<FitRun> runs;
  for (const char* k : {"run1", "run2", "run3"}) {
    const std::string dir =
        GPUMEM_SOURCE_DIR "/reports/probe/h200x1/h200x1-llama8b/" + std::string(k);
    runs.push_back({dir, scenario_of(dir), *read_trace_dir(dir), false});
  }
  const GpuSpec& gpu = *catalogs().gpus.find("h200-sxm-141gb");
  const std::vector<const Parameter*> params = {find_parameter("context"),
                                                find_parameter("cublas_load")};
  Result<FitOutcome> fit = fit_constants(runs, catalogs().gpus, catalogs().models,
                                         default_constants(gpu), params, CheckTolerances{});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_EQ(fit->values[0].first, "context");
  EXPECT_EQ(fit->values[0].second.value(), 552'402'944);
  EXPECT_EQ(fit->values[1].first, "cublas_load");
  EXPECT_EQ(fit->values[1].second.value(), 73'400'320);
  const ErrorSummary e = summarize(fit->fitted);
  EXPECT_EQ(e.steps, 27);  // 9 steps x 3 runs
}

// An H100 (driver 580.159.04) whose CUDA total is 10.5 MiB below the catalog's (public logs
// of older drivers): SGLang sizes qwen3.6-27b's small KV pool from it, so the check simulates
// gpumem-probe's run on the trace's total (4 tokens under the run's, from the fitted
// context); on the catalog's the pool comes out 132 tokens (0.16 %) over, outside the check's
// tolerance.
TEST(Check, SimulatesTheMachineTheTraceRanOn) {
  const std::string run = GPUMEM_SOURCE_DIR "/reports/probe/h100x1/h100x1-qwen3.6-27b/run1";
  const std::vector<Trace> traces = *read_trace_dir(run);
  const Scenario s = scenario_of(run);
  const GpuSpec& listed = *catalogs().gpus.find("h100-sxm-80gb");
  EXPECT_EQ(listed.cuda_total->value(), 81'090LL << 20);
  EXPECT_EQ(traces.front().cuda_total->value(), 85'017'493'504);
  const GpuCatalog machine = with_traced_machine(catalogs().gpus, s, traces.front());
  EXPECT_EQ(machine.find("h100")->cuda_total->value(), 85'017'493'504);
  EXPECT_EQ(machine.gpus().size(), catalogs().gpus.gpus().size());
  Diagnostics diags;
  std::optional<CalibrationFile> file = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h100-sxm-80gb.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(file) << diags.to_string();
  const auto checked = [&](const GpuCatalog& gpus) {
    std::optional<Ledger> l = simulate_scenario(
        s, SimulationInputs{gpus, catalogs().models, constants_from(*file, listed)}, diags);
    EXPECT_TRUE(l) << diags.to_string();
    return check_ledger(*l, traces, CheckTolerances{});
  };
  EXPECT_TRUE(checked(machine).passed());
  const CheckResult on_catalog = checked(catalogs().gpus);
  EXPECT_FALSE(on_catalog.passed());
  EXPECT_NE(render_check(on_catalog).find("| 0 | max_total_num_tokens | 83,759 | 83,627 |"),
            std::string::npos);
  EXPECT_NE(render_check(checked(machine)).find("| 0 | max_total_num_tokens | 83,623 | 83,627 |"),
            std::string::npos);
  // A torch replay's KV cache was sized by the simulation that exported it: no other total.
  const std::string replay = GPUMEM_SOURCE_DIR "/reports/probe/h100x1/h100x1-qwen3.6-27b/run3";
  EXPECT_EQ(with_traced_machine(catalogs().gpus, s, read_trace_dir(replay)->front())
                .find("h100")
                ->cuda_total,
            listed.cuda_total);
}

// One GPU shows no NCCL communicator: a fit of one-GPU H100 traces started from the H200's
// calibration moves the constants the traces show and keeps its NCCL ones to the byte
// (gpumem calibrate --start-from).
TEST(Fit, KeepsTheStartsConstantsThatTheTracesCannotShow) {
  std::vector<FitRun> runs;
  for (const char* k : {"run1", "run2"}) {
    const std::string dir =
        GPUMEM_SOURCE_DIR "/reports/probe/h100x1/h100x1-llama8b/" + std::string(k);
    runs.push_back({dir, scenario_of(dir), *read_trace_dir(dir), false});
  }
  Diagnostics diags;
  std::optional<CalibrationFile> h200 = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(h200) << diags.to_string();
  const SimulationConstants start = constants_from(*h200, *catalogs().gpus.find("h100"));
  std::vector<const Parameter*> params;
  for (const Parameter& p : calibration_parameters()) {
    if (!p.pytorch_only) params.push_back(&p);
  }
  Result<FitOutcome> fit =
      fit_constants(runs, catalogs().gpus, catalogs().models, start, params, CheckTolerances{});
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  const auto value = [&](std::string_view name) {
    return find_parameter(name)->get(fit->constants).value();
  };
  EXPECT_EQ(value("nccl_kernel_image_sm90"), 195'404'764);
  EXPECT_EQ(value("nccl_launch_stack_per_thread"), 658);
  EXPECT_EQ(value("context"), 552'402'944);
  EXPECT_EQ(summarize(fit->fitted).max.value(), 0);
}

// A torch-probe replay of the same start-up (PyTorch 2.11 on an H200): the probe is named,
// and checked with the PyTorch process's calibration and the replayed program's decisions
// pinned, every step agrees within 0.37 MiB.
TEST(Trace, TorchProbeReplaysAreCheckedAsThePytorchProcess) {
  const std::string run = GPUMEM_SOURCE_DIR "/reports/probe/h200x1/h200x1-llama8b/run7";
  Result<std::vector<Trace>> traces = read_trace_dir(run);
  ASSERT_TRUE(traces.ok()) << traces.status().message();
  const Trace& t = traces->front();
  EXPECT_EQ(t.probe, "torch");
  EXPECT_EQ(t.torch_version, "2.11.0+cu130");
  // The first capture: stream pool 70 MiB, generator segment 2 MiB, ATen module 92 MiB
  // beyond what gpumem-probe's raw process takes (576 MiB in run1).
  EXPECT_EQ(t.step("cuda_graphs")->taken->value(), 738LL << 20);
  EXPECT_EQ(read_trace_dir(kRun)->front().probe, "gpumem-probe");

  const Scenario s = with_replayed_decisions(scenario_of(run), t);
  EXPECT_EQ(s.observed.free_before_weights->value(), 149'557'425'883);
  EXPECT_EQ(s.observed.free_after_weights->value(), 133'428'229'851);
  EXPECT_FALSE(with_replayed_decisions(scenario_of(kRun), *read_trace_dir(kRun)->begin())
                   .observed.free_before_weights);
  const GpuSpec& gpu = *catalogs().gpus.find(s.hardware.gpu);
  Diagnostics diags;
  std::optional<CalibrationFile> file = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb-torch.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(file) << diags.to_string();
  EXPECT_EQ(file->probe, "torch");
  // A replay of a gpumem.ops.v1 trace: the program it ran named no PyTorch resource, so its
  // simulation makes no named use; the first capture creates both, as the replay did.
  EXPECT_EQ(t.ops_format, "gpumem.ops.v1");
  EXPECT_EQ(read_trace_dir(kRun)->front().ops_format, "");
  const SimulationConstants replayed = with_replayed_program(constants_from(*file, gpu), t);
  EXPECT_FALSE(replayed.device.pytorch_uses_named);
  EXPECT_TRUE(constants_from(*file, gpu).device.pytorch_uses_named);
  std::optional<Ledger> l =
      simulate_scenario(s, SimulationInputs{catalogs().gpus, catalogs().models, replayed}, diags);
  ASSERT_TRUE(l) << diags.to_string();
  const CheckResult r = check_ledger(*l, *traces, CheckTolerances{});
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.compared_steps, 9);
  EXPECT_EQ(r.median_abs_error.value(), 0);
  EXPECT_EQ(r.max_abs_error.value(), 384'636);  // cublas, 0.37 MiB
  EXPECT_EQ(r.probe,
            "torch (PyTorch 2.11.0+cu130, CUDA runtime 13000, NCCL 22809, driver 580.159.04, "
            "NVIDIA H200)");
  EXPECT_NE(render_check(r).find("Probe: torch (PyTorch 2.11.0+cu130"), std::string::npos);
}

// A raw calibration file's text with every constant, plus `extra` lines under constants.
std::string calibration_text(const std::string& gpu, const std::string& extra,
                             const std::string& left_out = "") {
  std::string text = "name: x\ngpu: " + gpu + "\nconstants:\n";
  for (const Parameter& p : calibration_parameters()) {
    if (p.name != left_out && !p.pytorch_only) text += "  " + std::string(p.name) + ": 1MiB\n";
  }
  return text + extra;
}

std::string load_errors(const std::string& text) {
  const std::string path = (scratch_dir() / "calibration-errors.yaml").string();
  FILE* out = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), out);
  std::fclose(out);
  Diagnostics diags;
  EXPECT_FALSE(load_calibration_file(path, catalogs().gpus, diags));
  std::string errors = diags.to_string();
  for (size_t at = errors.find(path); at != std::string::npos; at = errors.find(path)) {
    errors.replace(at, path.size(), "c.yaml");
  }
  return errors;
}

TEST(CalibrationFile, RoundTrips) {
  Diagnostics diags;
  std::optional<CalibrationFile> f = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(f) << diags.to_string();
  const std::string path = (scratch_dir() / "h200-test.yaml").string();
  FILE* out = std::fopen(path.c_str(), "w");
  std::fputs(calibration_file_text(*f).c_str(), out);
  std::fclose(out);
  std::optional<CalibrationFile> back = load_calibration_file(path, catalogs().gpus, diags);
  ASSERT_TRUE(back) << diags.to_string();
  EXPECT_EQ(back->constants, f->constants);
  EXPECT_EQ(back->provenance, f->provenance);
  const SimulationConstants c = constants_from(*back, *catalogs().gpus.find("h200"));
  EXPECT_TRUE(c.calibrated);
  EXPECT_EQ(c.device.context_base.value(), 552'454'437);
}

TEST(CalibrationFile, RejectsWhatWouldBeSilentlyWrong) {
  EXPECT_EQ(load_errors(calibration_text("h200-sxm-141gb", "  contxt: 1GiB\n")),
            "c.yaml:9:3: unknown calibration constant 'contxt'; did you mean 'context'?\n");
  // Last one used to win.
  EXPECT_EQ(load_errors(calibration_text("h200-sxm-141gb", "  context: 2GiB\n")),
            "c.yaml:9:3: calibration constant 'context' is given twice\n");
  // Its default used to stand in while the reports said "calibrated".
  EXPECT_EQ(load_errors(calibration_text("h200-sxm-141gb", "", "cublas_load")),
            "c.yaml:4:3: calibration constant 'cublas_load' is missing; a calibration file gives "
            "every constant (gpumem calibrate writes them all)\n");
  // It used to match no scenario, so the GPU it was meant for ran uncalibrated.
  EXPECT_EQ(load_errors(calibration_text("h200-sxm-141", "")),
            "c.yaml:2:6: unknown GPU 'h200-sxm-141'; did you mean 'h200-sxm-141gb'?\n");
  EXPECT_EQ(load_errors("probe: pytorch\n" + calibration_text("h200-sxm-141gb", "")),
            "c.yaml:1:8: unknown probe 'pytorch'; gpumem knows gpumem-probe, torch and logs\n");
  // A raw process has none of a PyTorch process's constants; a torch calibration gives them.
  EXPECT_EQ(load_errors(calibration_text("h200-sxm-141gb", "  pytorch_first_kernel: 1MiB\n")),
            "c.yaml:9:3: calibration constant 'pytorch_first_kernel' belongs to a PyTorch "
            "process; only a calibration with 'probe: torch' or 'probe: logs' gives it\n");
  EXPECT_EQ(load_errors("probe: torch\n" + calibration_text("h200-sxm-141gb", "")),
            "c.yaml:5:3: calibration constant 'pytorch_stream_pool' is missing; a "
            "calibration file gives every constant (gpumem calibrate writes them all)\n"
            "c.yaml:5:3: calibration constant 'pytorch_aten_module' is missing; a "
            "calibration file gives every constant (gpumem calibrate writes them all)\n"
            "c.yaml:5:3: calibration constant 'pytorch_first_capture' is missing; a "
            "calibration file gives every constant (gpumem calibrate writes them all)\n"
            "c.yaml:5:3: calibration constant 'pytorch_first_kernel' is missing; a "
            "calibration file gives every constant (gpumem calibrate writes them all)\n");
}

// The probe a calibration was fitted for is written only when it is not gpumem-probe, and
// read back.
TEST(CalibrationFile, NamesTheProbeOfItsTraces) {
  Diagnostics diags;
  std::optional<CalibrationFile> raw = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb.yaml", catalogs().gpus, diags);
  std::optional<CalibrationFile> torch = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/h200-sxm-141gb-torch.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(raw && torch) << diags.to_string();
  EXPECT_EQ(raw->probe, "gpumem-probe");
  EXPECT_EQ(torch->probe, "torch");
  EXPECT_EQ(calibration_file_text(*raw).find("probe:"), std::string::npos);
  EXPECT_NE(calibration_file_text(*torch).find("\nprobe: torch\n"), std::string::npos);
}

// A calibration fitted to start-up logs (gpumem calibrate --from-logs) stands for a serving
// engine's PyTorch process, so it gives PyTorch's own costs too, and every report names its
// constants log-calibrated.
TEST(CalibrationFile, LogCalibrationIsAPyTorchProcessNamedLogCalibrated) {
  Diagnostics diags;
  std::optional<CalibrationFile> logs = load_calibration_file(
      GPUMEM_SOURCE_DIR "/model/calibration/rtx-4090-logs.yaml", catalogs().gpus, diags);
  ASSERT_TRUE(logs) << diags.to_string();
  EXPECT_EQ(logs->probe, "logs");
  EXPECT_NE(calibration_file_text(*logs).find("\nprobe: logs\n"), std::string::npos);
  const SimulationConstants c = constants_from(*logs, *catalogs().gpus.find("rtx-4090"));
  EXPECT_TRUE(c.calibrated);
  EXPECT_EQ(c.name,
            "calibration rtx-4090-logs (log-calibrated: its context fitted to public start-up "
            "logs, no probe trace)");
  // Measured alike on the H100 and the H200 (their -torch.yaml files), borrowed by the fit's
  // start and kept.
  EXPECT_EQ(c.device.pytorch_stream_pool, bytes(73'400'320));
  EXPECT_EQ(load_errors("probe: logs\n" + calibration_text("h200-sxm-141gb", "")).substr(0, 74),
            "c.yaml:5:3: calibration constant 'pytorch_stream_pool' is missing; a calib");
}

}  // namespace
}  // namespace gpumem
