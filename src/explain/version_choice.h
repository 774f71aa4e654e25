// Which engine release a replay of a logged start-up uses: the one the log prints, else the
// newest release gpumem models whose rules agree with the log's wording (a line's form dates
// it: vLLM V0's "Loading model weights took", "Model loading took ... GiB memory" from
// v0.11.0, ...). A log older than every modelled release is replayed with the oldest one,
// and the note says so: the miss that follows is the engine's history, not the model's.
#ifndef GPUMEM_EXPLAIN_VERSION_CHOICE_H_
#define GPUMEM_EXPLAIN_VERSION_CHOICE_H_

#include <string>

#include "explain/startup_log.h"

namespace gpumem {

struct VersionChoice {
  std::string version;  // "0.5.9", "0.10.2"
  std::string note;     // how it was chosen, with the lines that say so
  bool older_than_modelled = false;
};

VersionChoice choose_version(const LogRun& run, LogEngine engine);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_VERSION_CHOICE_H_
