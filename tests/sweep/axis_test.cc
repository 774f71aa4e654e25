// Parsing and checking --vary arguments: exact values of ranges (decimal steps, no binary
// drift), the column of every value, and the exact text of every error.
#include "sweep/axis.h"

#include <gtest/gtest.h>

#include "support/test_catalogs.h"

namespace gpumem::sweep {
namespace {

using Strings = std::vector<std::string>;

std::optional<Axis> parse(std::string_view arg, std::string* errors = nullptr, int ordinal = 1) {
  Diagnostics diags;
  std::optional<Axis> a = parse_axis(arg, ordinal, diags);
  if (errors != nullptr) *errors = diags.to_string();
  EXPECT_EQ(a.has_value(), diags.empty());
  return a;
}

std::string parse_error(std::string_view arg, int ordinal = 1) {
  std::string errors;
  parse(arg, &errors, ordinal);
  return errors;
}

const Scenario& seed() {
  static const Scenario s = [] {
    Diagnostics diags;
    return *load_scenario(GPUMEM_SOURCE_DIR "/scenarios/seed-kimi-k2-pcie8-mfs055.yaml",
                          test_catalogs().gpus, diags);
  }();
  return s;
}

const Scenario& vllm_scenario() {
  static const Scenario s = [] {
    Diagnostics diags;
    return *load_scenario(GPUMEM_SOURCE_DIR "/scenarios/h100x4-llama-3.1-70b-vllm-tp4.yaml",
                          test_catalogs().gpus, diags);
  }();
  return s;
}

// The errors of checking `arg` against `base`; empty when it passes.
std::string check_error(std::string_view arg, const Scenario& base, Axis* out = nullptr) {
  Diagnostics diags;
  std::optional<Axis> a = parse_axis(arg, 1, diags);
  EXPECT_TRUE(a.has_value()) << diags.to_string();
  if (!a) return diags.to_string();
  const bool ok = check_axis(*a, base, test_catalogs().gpus, diags);
  EXPECT_EQ(ok, diags.empty());
  if (out != nullptr) *out = *a;
  return diags.to_string();
}

TEST(SweepAxis, ListKeepsValuesAndTheirColumns) {
  const std::optional<Axis> a = parse("--tp-size=4,8,16");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->key, "--tp-size");
  EXPECT_EQ(a->values, (Strings{"4", "8", "16"}));
  // "--tp-size=" is 10 characters: the values start at columns 11, 13 and 15.
  EXPECT_EQ(a->value_columns, (std::vector<int>{11, 13, 15}));
}

TEST(SweepAxis, DecimalRangeStepsExactly) {
  // In binary floating point 0.50 + 2 x 0.05 is 0.6000000000000001.
  EXPECT_EQ(parse("--mem-fraction-static=0.50..0.60:0.05")->values,
            (Strings{"0.50", "0.55", "0.60"}));
  // Written with the most decimals of A, B and STEP; B is included only when reached.
  EXPECT_EQ(parse("--mem-fraction-static=0.8..0.9:0.02")->values,
            (Strings{"0.80", "0.82", "0.84", "0.86", "0.88", "0.90"}));
  EXPECT_EQ(parse("--mem-fraction-static=0.8..0.9:0.03")->values,
            (Strings{"0.80", "0.83", "0.86", "0.89"}));
}

TEST(SweepAxis, IntegerRange) {
  const std::optional<Axis> a = parse("--cuda-graph-max-bs=8..64:8");
  EXPECT_EQ(a->values, (Strings{"8", "16", "24", "32", "40", "48", "56", "64"}));
  EXPECT_EQ(parse("--context-length=4096..4096:1")->values, (Strings{"4096"}));
}

TEST(SweepAxis, SyntaxErrorsAreLocated) {
  EXPECT_EQ(parse_error("--tp-size", 3),
            "--vary:3:1: expected KEY=V1,V2,... or KEY=A..B:STEP (e.g. "
            "--mem-fraction-static=0.80,0.85 or --cuda-graph-max-bs=8..64:8), got '--tp-size'\n");
  EXPECT_EQ(parse_error("--tp-size=4,,8"), "--vary:1:13: empty value in '4,,8'\n");
  EXPECT_EQ(parse_error("--tp-size=4..8"),
            "--vary:1:11: a range is A..B:STEP, e.g. 0.80..0.90:0.02; got '4..8'\n");
  EXPECT_EQ(parse_error("--tp-size=4..8:x"),
            "--vary:1:11: a range is A..B:STEP, e.g. 0.80..0.90:0.02; got '4..8:x'\n");
  // The step's column: "--tp-size=" is 10 characters, "4..8:" 5 more.
  EXPECT_EQ(parse_error("--tp-size=4..8:0"),
            "--vary:1:16: the range's step must be positive; got '0'\n");
  EXPECT_EQ(parse_error("--tp-size=8..4:1"),
            "--vary:1:11: the range's end is below its start in '8..4:1'\n");
  EXPECT_EQ(parse_error("--context-length=1..200001:1"),
            "--vary:1:18: the range '1..200001:1' has 200001 values; at most 100000 are "
            "allowed\n");
}

TEST(SweepAxis, FlagsAreCheckedAgainstTheEngine) {
  Axis a;
  EXPECT_EQ(check_error("--mem-fraction-static=0.5,0.9", seed(), &a), "");
  EXPECT_EQ(a.kind, AxisKind::kFlag);
  EXPECT_EQ(a.name, "--mem-fraction-static");
  EXPECT_EQ(check_error("--mem-fraction-statc=0.5", seed()),
            "--vary:1:1: unknown SGLang flag '--mem-fraction-statc'; did you mean "
            "'--mem-fraction-static'?\n");
  // "--cuda-graph-max-bs=8," is 22 characters: 'x' is at column 23.
  EXPECT_EQ(check_error("--cuda-graph-max-bs=8,x", seed()),
            "--vary:1:23: '--cuda-graph-max-bs' must be an integer, got 'x'\n");
}

TEST(SweepAxis, VllmFlagsAcceptUnderscores) {
  Axis a;
  EXPECT_EQ(check_error("--max_model_len=8192,16384", vllm_scenario(), &a), "");
  EXPECT_EQ(a.name, "--max-model-len");
  EXPECT_EQ(check_error("--gpu-memory-utilisation=0.9", vllm_scenario()),
            "--vary:1:1: unknown vLLM flag '--gpu-memory-utilisation'; did you mean "
            "'--gpu-memory-utilization'?\n");
}

TEST(SweepAxis, HardwareKeys) {
  Axis a;
  EXPECT_EQ(check_error("hardware.gpu=h200,rtx-pro-6000-blackwell", seed(), &a), "");
  EXPECT_EQ(a.kind, AxisKind::kGpu);
  EXPECT_EQ(check_error("hardware.gpu=h200,h100x", seed()),
            "--vary:1:19: unknown GPU 'h100x'; did you mean 'h100'?\n");
  EXPECT_EQ(check_error("hardware.count=4,0", seed()),
            "--vary:1:18: 'hardware.count' (GPUs per node) must be between 1 and 64, got '0'\n");
  EXPECT_EQ(check_error("hardware.cout=4", seed()),
            "--vary:1:1: unknown hardware key 'hardware.cout'; did you mean 'hardware.count'?\n");
}

TEST(SweepAxis, EnvironmentVariables) {
  Axis a;
  EXPECT_EQ(check_error("env.NCCL_BUFFSIZE=4194304,8388608", seed(), &a), "");
  EXPECT_EQ(a.kind, AxisKind::kEnv);
  EXPECT_EQ(a.name, "NCCL_BUFFSIZE");
  EXPECT_EQ(check_error("NCCL_BUFSIZE=4194304", seed()),
            "--vary:1:1: environment variable 'NCCL_BUFSIZE' does not change start-up memory in "
            "gpumem's SGLang model; did you mean 'NCCL_BUFFSIZE'?\n");
}

TEST(SweepAxis, UnknownKeyOfNoKindSuggestsAKey) {
  EXPECT_EQ(check_error("mem-fraction-static=0.5", seed()),
            "--vary:1:1: unknown sweep key 'mem-fraction-static': a key is an engine flag "
            "(--name), hardware.gpu, hardware.count, hardware.nodes, hardware.interconnect or "
            "an environment variable; did you mean '--mem-fraction-static'?\n");
}

TEST(SweepAxis, HardwareFieldWithoutItsSectionSuggestsTheKey) {
  EXPECT_EQ(check_error("gpu=h200,b200", seed()),
            "--vary:1:1: unknown sweep key 'gpu': a key is an engine flag (--name), hardware.gpu, "
            "hardware.count, hardware.nodes, hardware.interconnect or an environment variable; "
            "did you mean 'hardware.gpu'?\n");
}

}  // namespace
}  // namespace gpumem::sweep
