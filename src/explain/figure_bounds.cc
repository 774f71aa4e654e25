#include "explain/figure_bounds.h"

#include <cmath>

namespace gpumem {
namespace {

// Figures that are differences of two measurements, or vLLM's KV budget: their sign is the
// engine's arithmetic, not a misprint.
bool may_be_negative(Quantity q) {
  switch (q) {
    case Quantity::kInitDistributedUsage:
    case Quantity::kWeightUsage:
    case Quantity::kDraftWeightUsage:
    case Quantity::kGraphUsage:
    case Quantity::kNonTorchMemory:
    case Quantity::kAvailableKvMemory:
    // vLLM's CUDA-graph estimate is free memory before the captures less free memory after:
    // negative where the captures gave memory back (a GB10's unified memory prints -4.74 GiB).
    case Quantity::kCudaGraphEstimate:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<std::string> figure_out_of_bounds(std::string_view what, FigureUnit unit,
                                                bool negative_allowed, const PrintedNumber& n,
                                                std::string_view printed) {
  const std::string head = std::string(what) + " '" + std::string(printed) + "'";
  if (!std::isfinite(n.value)) return head + " is not a finite number";
  if (n.value < 0 && (!negative_allowed || unit != FigureUnit::kGiB)) {
    return head + " is negative";
  }
  switch (unit) {
    case FigureUnit::kGiB:
      if (std::fabs(n.value) > kMaxFigureGib) {
        return head + " is out of range: a memory figure is at most 262144 GiB (2^48 bytes)";
      }
      break;
    case FigureUnit::kCount:
      if (n.decimals >= 0) return head + " is not a whole number";
      [[fallthrough]];
    case FigureUnit::kRatio:
      if (n.value > kMaxFigureCount) {
        return head + " is out of range: a count is at most 2147483647";
      }
      break;
  }
  return std::nullopt;
}

std::optional<std::string> figure_out_of_bounds(Quantity q, const PrintedNumber& n,
                                                std::string_view printed) {
  return figure_out_of_bounds(quantity_name(q), quantity_unit(q), may_be_negative(q), n, printed);
}

}  // namespace gpumem
