// What a release number given by the user may look like, before any engine reads it.
//
// `--engine-version` (simulate, scenario, plan, explain) and a log's `# explain-args:` header
// take an engine release as text, and that text travels into a scenario written as YAML and
// into every report. Each engine's own reader (sglang/version.h, vllm/version.h) decides which
// releases it models; this check only refuses text that no engine would ever print as its
// version, so that a newline, a YAML key or a shell fragment never reaches a report, and the
// user hears about a typo at the option that carries it rather than in a scenario file that
// does not exist.
#ifndef GPUMEM_ENGINE_RELEASE_SPELLING_H_
#define GPUMEM_ENGINE_RELEASE_SPELLING_H_

#include <string>
#include <string_view>

namespace gpumem {

// Empty when `text` is spelled as a release number as PEP 440 and setuptools_scm write the
// engines' versions ("0.5.9", "v0.4.6.post1", "0.11.0rc1", "0.20.1.dev1+g1a2b3c4"); otherwise
// the reason, quoting `text` with its control characters escaped.
std::string release_spelling_error(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_ENGINE_RELEASE_SPELLING_H_
