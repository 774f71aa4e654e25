// Reading an SGLang or vLLM start-up log: which engine wrote it (from the lines each engine
// recognises, unless the caller says), and every start-up run in it. A log in which neither
// engine recognises a line is an error: there is nothing to explain. So is a figure out of
// the bounds of explain/figure_bounds.h, or an argument dump nested past kMaxPyDepth. Errors
// are `file:line:col: message` (`file: message` for the whole log; `file` may be empty).
#ifndef GPUMEM_EXPLAIN_LOG_READER_H_
#define GPUMEM_EXPLAIN_LOG_READER_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "explain/startup_log.h"

namespace gpumem {

Result<StartupLog> read_startup_log(std::string_view text, std::optional<LogEngine> engine,
                                    const std::string& file = "");

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOG_READER_H_
