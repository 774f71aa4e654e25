// What a log file's own comment header adds to it: a line
//
//   # explain-args: --gpu rtx-4090 --gpu-count 2 --model qwen3-8b   (why: where the post says so)
//
// gives the options of `gpumem explain` that fill what the log does not print (the GPU, the
// GPU count, the model, the engine release), each followed by its reason in parentheses after three
// spaces. The public corpus (tests/data/engine-logs) keeps them there, beside the log's source
// address, so that every tool reading the corpus (scripts/explain-logs.sh, gpumem calibrate
// --from-logs) fills the same gaps from the same evidence. Any other option is an error by
// name: an option that was silently dropped would replay another scenario than the one stated,
// and so is a --gpu that names no GPU of the catalog and no size.
#ifndef GPUMEM_EXPLAIN_LOG_HEADER_H_
#define GPUMEM_EXPLAIN_LOG_HEADER_H_

#include <string>
#include <string_view>

#include "catalog/gpu_catalog.h"
#include "core/status.h"
#include "explain/explanation.h"

namespace gpumem {

// The options of every `# explain-args:` line of `text` (a log file's contents), read into
// overrides; `file` names the file in errors ("file:line:col: message"). A --gpu must be a
// GPU of `gpus` or a size, as the command line's.
Result<ExplainOverrides> overrides_from_header(std::string_view text, const std::string& file,
                                               const GpuCatalog& gpus);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_LOG_HEADER_H_
