#include "tests/explain/corpus_reading.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/atomic_file.h"
#include "core/python_format.h"
#include "explain/log_reader.h"

namespace gpumem {
namespace {

const std::string kDir = GPUMEM_SOURCE_DIR "/tests/data/engine-logs/";

std::string kind_name(ProblemKind k) {
  switch (k) {
    case ProblemKind::kOutOfMemory:
      return "out of memory";
    case ProblemKind::kKvCacheTooSmall:
      return "KV cache too small";
    case ProblemKind::kNoKvMemory:
      return "no KV cache memory";
    case ProblemKind::kBudget:
      return "free memory below the budget";
    case ProblemKind::kNotEnoughMemory:
      return "not enough memory";
    case ProblemKind::kImbalance:
      return "memory unbalanced";
    case ProblemKind::kOtherError:
      return "error";
  }
  return "";
}

std::string value_text(const Observation& o) {
  switch (quantity_unit(o.quantity)) {
    case FigureUnit::kGiB:
      return o.decimals == kExact ? std::to_string(std::llround(o.value * 1073741824.0)) + " B"
                                  : python_fixed(o.value, o.decimals) + " GiB";
    case FigureUnit::kCount:
      return std::to_string(std::llround(o.value));
    case FigureUnit::kRatio:
      // A utilization is a share of the GPU, not a multiple.
      return python_fixed(o.value, o.decimals < 0 ? 0 : o.decimals) +
             (o.quantity == Quantity::kEquivalentUtilization ? "" : "x");
  }
  return "";
}

// The lines of the file's header: what it is, its source, what the post says beside it
// (explain-args) and why it misses (why).
int header_lines(const std::string& text) {
  static const char* const kHeader[] = {"# gpumem test log:", "# source:",       "# Lines below",
                                        "# log lines,",       "# explain-args:", "# why:"};
  int n = 0;
  for (size_t at = 0; at < text.size(); ++n) {
    bool header = false;
    for (const char* h : kHeader) header = header || text.compare(at, std::strlen(h), h) == 0;
    if (!header) break;
    at = text.find('\n', at);
    if (at == std::string::npos) return n + 1;
    ++at;
  }
  return n;
}

}  // namespace

StartupLog read_corpus_log(const std::string& name) {
  Result<std::string> text = read_file(kDir + name + ".log", InputKind::kLog);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? read_log_text(text.value()) : StartupLog{};
}

StartupLog read_log_text(const std::string& text) {
  Result<StartupLog> log = read_startup_log(text, std::nullopt);
  EXPECT_TRUE(log.ok()) << log.status().message();
  return log.ok() ? log.value() : StartupLog{};
}

std::string as_read(const StartupLog& log) {
  std::string out;
  for (size_t i = 0; i < log.runs.size(); ++i) {
    const LogRun& r = log.runs[i];
    out += "start-up " + std::to_string(i + 1) + "\n";
    for (const Observation& o : r.observations) {
      out += std::to_string(o.line) + " " +
             (o.rank ? "rank " + std::to_string(*o.rank) : std::string("-")) + ": " +
             std::string(quantity_name(o.quantity)) + " " + value_text(o) + "\n";
    }
    for (const LoggedProblem& p : r.problems) {
      out += std::to_string(p.line) + " failed: " + kind_name(p.kind);
      if (p.requested_gib) out += ", asked " + python_fixed(*p.requested_gib, 4) + " GiB";
      if (p.free_gib) out += ", free " + python_fixed(*p.free_gib, 4) + " GiB";
      out += "\n";
    }
  }
  return out;
}

void check_corpus(LogEngine engine, const std::string& prefix, const std::vector<CorpusLog>& logs) {
  std::set<std::string> listed;
  for (const CorpusLog& c : logs) {
    SCOPED_TRACE(c.name);
    listed.insert(c.name);
    const Result<std::string> text = read_file(kDir + c.name + ".log", InputKind::kLog);
    ASSERT_TRUE(text.ok()) << text.status().message();
    const Result<StartupLog> log = read_startup_log(text.value(), std::nullopt);
    ASSERT_TRUE(log.ok()) << log.status().message();
    EXPECT_EQ(log->engine, engine);
    EXPECT_EQ(as_read(*log), c.as_read);
    const int header = header_lines(text.value());
    for (const LogRun& r : log->runs) {
      for (const Observation& o : r.observations) EXPECT_GT(o.line, header);
      for (const LoggedProblem& p : r.problems) EXPECT_GT(p.line, header);
      for (const LoggedFlag& f : r.flags) EXPECT_GT(f.line, header) << f.flag;
      if (r.model) {
        EXPECT_GT(r.model_line, header);
      }
      if (r.gpu_name) {
        EXPECT_GT(r.gpu_name_line, header);
      }
    }
  }
  std::set<std::string> files;
  for (const auto& f : std::filesystem::directory_iterator(kDir)) {
    const std::string name = f.path().stem().string();
    if (f.path().extension() == ".log" && name.starts_with(prefix)) files.insert(name);
  }
  EXPECT_EQ(listed, files);
}

}  // namespace gpumem
