// Where in a JSON file an error is, as `file:line:col`. nlohmann-json reports a syntax error
// by byte offset and, built with JSON_DIAGNOSTICS (CMakeLists.txt), a type or key error by the
// JSON pointer of the value ("(/steps/0/wall_s) type must be number"); this turns either into
// the line and column of that place in the text, so trace, ledger and other JSON inputs get
// the same located messages as YAML inputs.
#ifndef GPUMEM_CORE_JSON_LOCATION_H_
#define GPUMEM_CORE_JSON_LOCATION_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/diagnostics.h"

namespace gpumem {

// The 1-based line and column of byte `offset` of `text` (the column counts bytes).
SourceLoc location_of_offset(const std::string& file, std::string_view text, size_t offset);

// Where the value at JSON pointer `pointer` ("/steps/0/wall_s"; "" is the whole document)
// starts in `text`, a valid JSON document; {file, 0, 0} when it is not there.
SourceLoc location_of_pointer(const std::string& file, std::string_view text,
                              std::string_view pointer);

// "file:line:col: <what>: <nlohmann's message without its [json.exception...] tag and
// pointer>" for an exception thrown while parsing or reading `text`.
std::string json_error(const std::string& file, std::string_view text, std::string_view what,
                       const nlohmann::json::exception& e);

}  // namespace gpumem

#endif  // GPUMEM_CORE_JSON_LOCATION_H_
