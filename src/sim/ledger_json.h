// The JSON form of a ledger: written by `gpumem simulate --format json` and `gpumem report`,
// read back by `gpumem diff` and `gpumem check`. Deterministic to the byte (keys in a fixed
// order, integers for every byte count, shortest round-trip text for floats, no
// timestamps). Schema "gpumem.ledger.v1", documented field by field in reports/README.md.
#ifndef GPUMEM_SIM_LEDGER_JSON_H_
#define GPUMEM_SIM_LEDGER_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/ledger.h"

namespace gpumem {

inline constexpr char kLedgerFormat[] = "gpumem.ledger.v1";

std::string ledger_to_json(const Ledger& ledger);

// Facts as the ledger writes them (a list of {"key", <type>: value}), shared with the probe's
// traces so both carry the engine's numbers in one form.
nlohmann::ordered_json facts_to_json(const std::vector<Fact>& facts);
std::vector<Fact> facts_from_json(const nlohmann::ordered_json& array);
// The ledger in `text`; errors as `file:line:col: message`.
Result<Ledger> ledger_from_json(const std::string& file, const std::string& text);

}  // namespace gpumem

#endif  // GPUMEM_SIM_LEDGER_JSON_H_
