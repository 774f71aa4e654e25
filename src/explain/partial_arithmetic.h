// The pieces of a partial replay (partial_replay.h) that both engines' arithmetic uses: a
// logged figure with the rounding it was printed with, the rows of figures the arithmetic
// pins and predicts, what the log's own ending says, the release caveat and the CUDA total
// check; and each engine's arithmetic, in partial_replay_vllm.cc and partial_replay_sglang.cc.
// Internal to src/explain.
#ifndef GPUMEM_EXPLAIN_PARTIAL_ARITHMETIC_H_
#define GPUMEM_EXPLAIN_PARTIAL_ARITHMETIC_H_

#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "core/units.h"
#include "explain/explanation.h"

namespace gpumem::partial {

inline constexpr double kGiB = static_cast<double>(1LL << 30);
// A predicted GiB figure is shown with two decimals.
inline constexpr double kShownHalf = 0.005;

double half_unit(int decimals);
Bytes to_bytes(double gib);
double to_gib(Bytes b);
std::string gib(double v);  // "1.23 GiB"
std::string count_text(double v);

// A logged figure the arithmetic reads: GiB as printed, half a unit of its last digit.
struct Logged {
  double value = 0;
  double half = 0;
  const Observation* at = nullptr;
};

Logged logged(const Observation* o);

// The first figure of `q` printed by `process`, else the first printed by any process.
std::optional<Logged> first_of(const LogRun& run, Quantity q, const std::string& process);

// A logged flag's value as a number; nothing when absent or not a number.
std::optional<double> flag_number(const LogRun& run, std::string_view name);

// The rows of the figures the partial replay reads and sets.
class Rows {
 public:
  explicit Rows(RunExplanation& r) : r_(r) {}

  void pin(const std::optional<Logged>& l) {
    if (!l || l->at == nullptr) return;
    for (FigureCheck& c : r_.figures) {
      if (same(c, *l->at) && c.verdict == Verdict::kNotPredicted) c.verdict = Verdict::kPinned;
    }
  }
  void predict(const Observation& o, double predicted, double tolerance) {
    for (FigureCheck& c : r_.figures) {
      if (!same(c, o)) continue;
      c.predicted = predicted;
      c.tolerance = tolerance;
      c.verdict =
          std::fabs(predicted - c.logged) <= tolerance + 1e-9 ? Verdict::kMatch : Verdict::kMiss;
      ++predicted_;
    }
  }
  int predicted() const { return predicted_; }

 private:
  static bool same(const FigureCheck& c, const Observation& o) {
    return c.line == o.line && c.quantity == o.quantity && c.process == o.process;
  }
  RunExplanation& r_;
  int predicted_ = 0;
};

// "the engine's budget from the log's figures (model unknown: ...)" — what the partial replay
// leaves out, and how to get the full one.
std::string label(const RunExplanation& r);

// What the log says about the start-up's end, against the log's own arithmetic: a failure
// of one of `kinds` is the KV cache's; another failure (its cause not printed, or an
// error after the KV cache) does not contradict a KV cache that does not fit.
void agreement(RunExplanation& r, bool fits, std::initializer_list<ProblemKind> kinds);

// The log ends in a memory failure: where the log's own arithmetic decides nothing about the
// fit, the log's ending does (a partial replay is never more optimistic than the log).
bool memory_failure(const LogRun& run);

// The release the arithmetic follows, where the log's is outside the modelled ones.
void release_caveat(RunExplanation& r);

// The total GPU memory CUDA reports for the implied GPU (the unlisted one where the log sizes
// a GPU the catalog lacks).
std::optional<Bytes> catalog_total(const RunExplanation& r, const ExplainContext& ctx);

// The CUDA total the log prints against the catalog's for the GPU named elsewhere.
void total_check(RunExplanation& r, Rows& rows, const ExplainContext& ctx);

// Each engine's arithmetic on `r`; false when the log's figures determine nothing.
bool vllm_partial(RunExplanation& r, const ExplainContext& ctx);
bool sglang_partial(RunExplanation& r, const ExplainContext& ctx);

}  // namespace gpumem::partial

#endif  // GPUMEM_EXPLAIN_PARTIAL_ARITHMETIC_H_
