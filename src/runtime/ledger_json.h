// The JSON form of a ledger: written by `gpumem simulate --format json` and `gpumem report`,
// read back by `gpumem diff` and `gpumem check`. Deterministic to the byte (keys in a fixed
// order, integers for every byte count, shortest round-trip text for floats, no
// timestamps). Schema "gpumem.ledger/2", defined by the JSON Schema src/runtime/
// ledger.schema.json: the top-level `key_figures` object (runtime/key_figures.h) has the same
// keys for every engine, facts carry a stable `id` and the engine's `label`, and
// `fit_advice` holds the alternatives the fit advice simulated. "gpumem.ledger.v1" files
// (facts keyed by their label) are still read, their labels mapped to ids.
#ifndef GPUMEM_RUNTIME_LEDGER_JSON_H_
#define GPUMEM_RUNTIME_LEDGER_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/key_figures.h"
#include "runtime/ledger.h"

namespace gpumem {

inline constexpr char kLedgerSchema[] = "gpumem.ledger/2";

std::string ledger_to_json(const Ledger& ledger);

// The `key_figures` object of the schema, for every output that reports a start-up.
nlohmann::ordered_json key_figures_to_json(const KeyFigures& figures);

// Facts as the ledger writes them (a list of {"id", "label", <type>: value}), shared with the
// probe's traces so both carry the engine's numbers in one form. Reading also takes the
// v1 form {"key": <label>, ...} (runtime/fact_ids.h maps the label to its id).
nlohmann::ordered_json facts_to_json(const std::vector<Fact>& facts);
std::vector<Fact> facts_from_json(const nlohmann::ordered_json& array);
// The ledger in `text`; errors as `file:line:col: message`.
Result<Ledger> ledger_from_json(const std::string& file, const std::string& text);

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_LEDGER_JSON_H_
