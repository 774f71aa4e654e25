#include "explain/partial_replay.h"

#include <algorithm>
#include <utility>

#include "explain/partial_arithmetic.h"

namespace gpumem {

void partial_replay(RunExplanation& r, LogEngine engine, const ExplainContext& ctx) {
  // On a copy: a start-up whose figures determine nothing is left as it was.
  RunExplanation partial = r;
  if (engine == LogEngine::kVllm ? partial::vllm_partial(partial, ctx)
                                 : partial::sglang_partial(partial, ctx)) {
    r = std::move(partial);
    return;
  }
  // What the log's figures say where they check nothing (what the arithmetic leaves open,
  // why a figure is not predicted, the total a note implies) is still said.
  for (const std::string& line : partial.diagnosis) {
    if (line.starts_with("the log's arithmetic:") &&
        std::find(r.diagnosis.begin(), r.diagnosis.end(), line) == r.diagnosis.end()) {
      r.diagnosis.push_back(line);
    }
  }
}

}  // namespace gpumem
