// The public corpus of start-up logs (tests/data/engine-logs/, every file not named case*)
// as explain reads it, rendered one figure a line — "LINE rank R: figure VALUE UNIT" — and
// one failure a line, start-up by start-up, so that a test states what a log says, value,
// unit, rank and line, and reviews it whole. The corpus tests compare each log's rendering
// with the one reviewed against the log.
#ifndef GPUMEM_TESTS_EXPLAIN_CORPUS_READING_H_
#define GPUMEM_TESTS_EXPLAIN_CORPUS_READING_H_

#include <string>
#include <vector>

#include "explain/startup_log.h"

namespace gpumem {

struct CorpusLog {
  const char* name;     // tests/data/engine-logs/<name>.log
  const char* as_read;  // as_read() of it
};

// The rendering described above.
std::string as_read(const StartupLog& log);

// tests/data/engine-logs/<name>.log, and any text, as explain reads it; a failure to read
// fails the calling test and gives an empty log.
StartupLog read_corpus_log(const std::string& name);
StartupLog read_log_text(const std::string& text);

// Reads each log of `logs` and checks: the engine is `engine`; the rendering is the reviewed
// one; no figure, failure, flag or model comes from the comment lines the file starts with
// (its source and notes); and `logs` lists every corpus file whose name starts with `prefix`.
void check_corpus(LogEngine engine, const std::string& prefix, const std::vector<CorpusLog>& logs);

}  // namespace gpumem

#endif  // GPUMEM_TESTS_EXPLAIN_CORPUS_READING_H_
