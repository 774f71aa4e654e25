// A public log of tests/data/engine-logs/ explained as `gpumem explain` does (the test
// catalogs, the published constants), optionally with the options a user adds (--gpu,
// --model, --gpu-count) or the scenario they write beside it; and the comparison of one
// logged figure, by its line.
#ifndef GPUMEM_TESTS_EXPLAIN_EXPLAIN_CASE_H_
#define GPUMEM_TESTS_EXPLAIN_EXPLAIN_CASE_H_

#include <string>

#include "explain/explanation.h"

namespace gpumem {

Explanation explain_case(const std::string& log_file, const ExplainOverrides& fill = {},
                         const std::string& scenario_file = "");

// --gpu, --model and --gpu-count as a user gives them ("" and 0: not given).
ExplainOverrides with(std::string gpu, std::string model, int gpu_count);

// The comparison of the figure printed at `line` of the log (a test failure when none).
const FigureCheck& at(const RunExplanation& r, Quantity q, int line);

}  // namespace gpumem

#endif  // GPUMEM_TESTS_EXPLAIN_EXPLAIN_CASE_H_
