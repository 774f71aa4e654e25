#include "runtime/ledger.h"

namespace gpumem {

std::string_view outcome_name(StepOutcome o) {
  switch (o) {
    case StepOutcome::kOk:
      return "ok";
    case StepOutcome::kOutOfMemory:
      return "out_of_memory";
    case StepOutcome::kAborted:
      return "aborted";
    case StepOutcome::kError:
      return "error";
  }
  return "error";
}

Bytes LedgerStep::delta() const {
  Bytes sum;
  for (Bytes b : delta_by_category) sum += b;
  return sum;
}

bool GpuLedger::completed() const { return failed_step() == nullptr; }

const LedgerStep* GpuLedger::failed_step() const {
  for (const LedgerStep& s : steps) {
    if (s.outcome != StepOutcome::kOk) return &s;
  }
  return nullptr;
}

namespace {

template <typename Facts>
const Fact* find_fact(const Facts& facts, std::string_view id) {
  for (const Fact& f : facts) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

}  // namespace

const Fact* GpuLedger::fact(std::string_view id) const { return find_fact(facts, id); }

std::optional<double> GpuLedger::fact_number(std::string_view id) const {
  const Fact* f = fact(id);
  if (f == nullptr) return std::nullopt;
  if (const auto* b = std::get_if<Bytes>(&f->value)) return static_cast<double>(b->value());
  if (const auto* i = std::get_if<std::int64_t>(&f->value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&f->value)) return *d;
  return std::nullopt;
}
const Fact* Ledger::fact(std::string_view id) const { return find_fact(facts, id); }

bool Ledger::fits() const {
  for (const GpuLedger& g : gpus) {
    if (!g.completed()) return false;
  }
  return true;
}

const GpuLedger* Ledger::first_failure() const {
  for (const GpuLedger& g : gpus) {
    const LedgerStep* s = g.failed_step();
    if (s != nullptr && s->outcome != StepOutcome::kAborted) return &g;
  }
  return nullptr;
}

}  // namespace gpumem
