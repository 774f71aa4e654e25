// One dimension of a sweep: a scenario key and the values it takes, from one command-line
// argument `KEY=V1,V2,...` or `KEY=A..B:STEP`.
//
// KEY is an engine flag spelled as in the scenario's `engine.args` (`--mem-fraction-static`,
// vLLM's `--max_model_len` read as `--max-model-len`), a hardware key (`hardware.gpu`,
// `hardware.count`, `hardware.nodes`, `hardware.interconnect`) or an environment variable
// the engine model reads (`NCCL_BUFFSIZE`, or `env.NCCL_BUFFSIZE`). A range `A..B:STEP`
// lists A, A+STEP, ... up to B inclusive, computed in exact decimal steps (0.50..0.60:0.05
// gives 0.50, 0.55, 0.60, never 0.6000000000000001), each value written with as many
// decimals as the most precise of A, B and STEP.
//
// Errors are located in the argument: the file is "--vary", the line the argument's position
// among the --vary arguments (1-based), the column the offending text's (1-based), e.g.
// `--vary:2:22: '--mem-fraction-static' must be a number, got 'x'`.
//
// Parsing checks the syntax; `check_axis` checks the key and every value against the
// scenario's engine and the GPU catalog, so that every value that reaches a sweep point is
// one the scenario format accepts. What only an engine model can judge (a TP size that does
// not divide the heads) is left to the point, which then reports it as its own result.
#ifndef GPUMEM_SWEEP_AXIS_H_
#define GPUMEM_SWEEP_AXIS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/gpu_catalog.h"
#include "catalog/scenario.h"
#include "core/diagnostics.h"

namespace gpumem::sweep {

enum class AxisKind { kFlag, kGpu, kGpuCount, kNodes, kInterconnect, kEnv };

struct Axis {
  std::string key;  // as written on the command line
  AxisKind kind = AxisKind::kFlag;
  // kFlag: the engine's canonical spelling of the flag; kEnv: the variable's name.
  std::string name;
  std::vector<std::string> values;  // in the order given; written into the scenario as is
  std::vector<int> value_columns;   // 1-based column of each value in the argument
  SourceLoc loc;                    // of the argument's first character
};

// The most values one axis may have.
inline constexpr size_t kMaxAxisValues = 100'000;

// Parses `argument` (the ordinal-th --vary, 1-based). Errors go to `diags`.
std::optional<Axis> parse_axis(std::string_view argument, int ordinal, Diagnostics& diags);

// Checks the key and values of `axis` against `base`'s engine and `gpus`, and fills
// axis.kind and axis.name. Returns false (errors in `diags`) when anything is wrong.
bool check_axis(Axis& axis, const Scenario& base, const GpuCatalog& gpus, Diagnostics& diags);

}  // namespace gpumem::sweep

#endif  // GPUMEM_SWEEP_AXIS_H_
