#include "sim/ledger_recorder.h"

namespace gpumem {

LedgerRecorder::LedgerRecorder(SimDevice& device, const CachingAllocator& allocator, GpuLedger& out)
    : device_(device), allocator_(allocator), out_(out) {}

void LedgerRecorder::begin_step(std::string_view name) {
  current_ = LedgerStep{};
  current_.name = std::string(name);
  current_.log_lines = std::move(pending_lines_);
  pending_lines_.clear();
  for (size_t c = 0; c < kCategoryCount; ++c) {
    by_category_before_[c] = device_.used_by(static_cast<Category>(c));
  }
  allocated_before_ = allocator_.memory_allocated();
  reserved_before_ = allocator_.memory_reserved();
  device_.reset_peak();
  in_step_ = true;
}

void LedgerRecorder::end_step(const Status& outcome) {
  if (!in_step_) return;
  in_step_ = false;
  LedgerStep& s = current_;
  for (size_t c = 0; c < kCategoryCount; ++c) {
    s.delta_by_category[c] = device_.used_by(static_cast<Category>(c)) - by_category_before_[c];
  }
  s.used_after = device_.used();
  s.free_after = device_.total() - device_.used();
  s.peak_used = device_.peak_used();
  s.allocated_after = allocator_.memory_allocated();
  s.reserved_after = allocator_.memory_reserved();
  s.allocated_delta = s.allocated_after - allocated_before_;
  s.reserved_delta = s.reserved_after - reserved_before_;
  switch (outcome.code()) {
    case StatusCode::kOk:
      s.outcome = StepOutcome::kOk;
      break;
    case StatusCode::kOutOfMemory:
      s.outcome = StepOutcome::kOutOfMemory;
      s.requested = device_.last_failure().requested;
      s.free_at_failure = device_.last_failure().free;
      break;
    case StatusCode::kAborted:
      s.outcome = StepOutcome::kAborted;
      break;
    default:
      s.outcome = StepOutcome::kError;
      break;
  }
  s.message = outcome.message();
  out_.steps.push_back(std::move(s));
}

void LedgerRecorder::log_line(std::string_view line) {
  if (in_step_) {
    current_.log_lines.emplace_back(line);
  } else {
    pending_lines_.emplace_back(line);
  }
}

}  // namespace gpumem
