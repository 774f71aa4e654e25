// The corpus of real launch commands (tests/data/launch-commands/README.md): every command, as
// a user or a document typed it, split as a shell splits it, read by the launch-command
// reader, turned into a scenario on the GPUs its row names and simulated the way `gpumem
// simulate` does (the GPU's calibration when there is one). What each row gives — the engine,
// GPUs, model, environment and canonical flags read, then the KV-cache tokens and verdict, or
// the exact refusal — must equal its expected/<row>.txt, and the row's outcome class must
// match. GPUMEM_UPDATE_GOLDEN=1 writes the expected files instead, to review with git diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "calib/calibration_file.h"
#include "engine/engine_model.h"
#include "launch/launch_command.h"
#include "launch/launch_scenario.h"
#include "runtime/fact_ids.h"
#include "runtime/key_figures.h"
#include "simulate/simulate.h"
#include "support/test_catalogs.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = fs::path(GPUMEM_SOURCE_DIR) / "tests/data/launch-commands";

// A command as a POSIX shell splits it: words separated by blanks, '...' literal, "..." with
// \" \\ \$ \` escapes, \ escaping one character outside quotes, \ + newline joining lines.
// The command ends at an unquoted newline, ';' or '&' (a trailing '&' runs it in the
// background); what follows is `rest`. Expansions ($VAR, $(...), `...`) are refused: the
// corpus writes commands with their variables resolved, so that a row is one command. A '~'
// stays as typed: it starts only paths gpumem does not read (a docker volume).
struct ShellCommand {
  std::vector<std::string> words;
  std::string rest;   // text after the command's end, trimmed
  std::string error;  // why the text is not one plain command
};

ShellCommand split_shell(const std::string& text) {
  ShellCommand out;
  std::string word;
  bool in_word = false;
  size_t i = 0;
  const auto end_word = [&] {
    if (in_word) out.words.push_back(word);
    word.clear();
    in_word = false;
  };
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;  // a continued line
        continue;
      }
      if (i + 1 < text.size()) word += text[++i];
      in_word = true;
    } else if (c == '\'') {
      const size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) return {{}, {}, "an unterminated '...'"};
      word += text.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
    } else if (c == '"') {
      in_word = true;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '$' || text[i] == '`') return {{}, {}, "an expansion inside \"...\""};
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view("\"\\$`\n").find(text[i + 1]) != std::string_view::npos) {
          if (text[++i] != '\n') word += text[i];
          continue;
        }
        word += text[i];
      }
      if (i == text.size()) return {{}, {}, "an unterminated \"...\""};
    } else if (c == '$' || c == '`') {
      return {{}, {}, std::string("an expansion: ") + c};
    } else if (c == ' ' || c == '\t') {
      end_word();
    } else if (c == '\n' || c == ';' || c == '&') {
      end_word();
      std::string rest = text.substr(i + 1);
      const size_t b = rest.find_first_not_of(" \t\n");
      const size_t e = rest.find_last_not_of(" \t\n");
      out.rest = b == std::string::npos ? "" : rest.substr(b, e - b + 1);
      return out;
    } else {
      word += c;
      in_word = true;
    }
  }
  end_word();
  return out;
}

// A row of the corpus: "# key: value" header lines, then the command as typed.
struct CorpusRow {
  std::string name;  // the file's stem
  std::string source, engine, gpu, outcome;
  std::string command;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CorpusRow read_row(const fs::path& file) {
  CorpusRow row;
  row.name = file.stem().string();
  std::istringstream in(read_text(file));
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header && line.starts_with("# ")) {
      const size_t colon = line.find(": ");
      const std::string key = line.substr(2, colon - 2);
      const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
      if (key == "source") row.source = value;
      if (key == "engine") row.engine = value;
      if (key == "gpu") row.gpu = value;
      if (key == "outcome") row.outcome = value;
      continue;
    }
    header = false;
    row.command += line + "\n";
  }
  return row;
}

std::vector<std::string> corpus_rows() {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(kCorpus / "commands")) {
    if (e.path().extension() == ".cmd") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The corpus's rows are figures of the raw CUDA process, as gpumem-probe measures it: the
// calibration file whose GPU is the scenario's and whose probe is gpumem-probe, else the
// published defaults. (`gpumem simulate` adds the PyTorch process's own costs,
// cli/calibration_choice.h; the goldens under tests/cli show those.)
SimulationConstants constants_for(const std::string& gpu_name) {
  const GpuSpec& gpu = *test_catalogs().gpus.find(gpu_name);
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(GPUMEM_SOURCE_DIR) / "model/calibration")) {
    if (e.path().extension() != ".yaml") continue;
    Diagnostics diags;
    std::optional<CalibrationFile> f =
        load_calibration_file(e.path().string(), test_catalogs().gpus, diags);
    if (f && test_catalogs().gpus.find(f->gpu) == &gpu && f->probe == kRawProbe) {
      return constants_from(*f, gpu);
    }
  }
  return default_constants(gpu);
}

// The command's working directory is the corpus's config/, where the files its --config
// names lie (as in the directory the recipe was run from); restored after reading.
std::optional<EngineLaunch> read_in_config_dir(const std::vector<std::string>& argv,
                                               Diagnostics& diags) {
  const fs::path before = fs::current_path();
  fs::current_path(kCorpus / "config");
  std::optional<EngineLaunch> l = read_launch_command(argv, diags);
  fs::current_path(before);
  return l;
}

std::string refusal_lines(const Diagnostics& diags) {
  std::string out;
  std::istringstream in(diags.to_string());
  for (std::string line; std::getline(in, line);) out += "refused: " + line + "\n";
  return out;
}

// Everything the row's simulation says, and its outcome class.
struct RowResult {
  std::string text;
  std::string outcome;
};

RowResult run_row(const CorpusRow& row) {
  RowResult r;
  const ShellCommand shell = split_shell(row.command);
  if (!shell.error.empty()) return {"shell: " + shell.error + "\n", "bad-row"};
  if (!shell.rest.empty()) r.text += "shell: a second command follows: " + shell.rest + "\n";
  Diagnostics diags;
  std::optional<EngineLaunch> launch = read_in_config_dir(shell.words, diags);
  if (!launch) {
    r.text += refusal_lines(diags);
    r.outcome = "refused-command";
    return r;
  }
  std::optional<Scenario> s = scenario_from_launch(
      *launch, LaunchOptions{row.gpu, ""}, test_catalogs().gpus, test_catalogs().models, diags);
  if (!s) {
    r.text += refusal_lines(diags);
    r.outcome = "refused-command";
    return r;
  }
  r.text += "engine: " + s->engine.name + " " + s->engine.version + "\n";
  r.text += "gpus: " + std::to_string(s->hardware.nodes * s->hardware.gpus_per_node) + " x " +
            s->hardware.gpu +
            (s->hardware.nodes > 1 ? " (" + std::to_string(s->hardware.nodes) + " nodes)" : "") +
            "\n";
  r.text += "model: " + s->model.catalog_name + "\n";
  for (const EnvVar& v : s->engine.env) r.text += "env: " + v.name + "=" + v.value + "\n";
  for (const EngineArg& a : s->engine.args) {
    std::string values;
    for (const std::string& v : a.values) values += (values.empty() ? "" : " ") + v;
    r.text += "flag: " + a.flag + (values.empty() ? "" : "=" + values) + "\n";
  }
  const SimulationInputs inputs{test_catalogs().gpus, test_catalogs().models,
                                constants_for(s->hardware.gpu)};
  std::optional<Ledger> ledger = simulate_scenario(*s, inputs, diags);
  if (!ledger || !diags.empty()) {
    r.text += refusal_lines(diags);
    const bool model = diags.to_string().find("unknown model") != std::string::npos;
    r.outcome = model ? "refused-model" : "refused-flag";
    return r;
  }
  const KeyFigures k = key_figures(*ledger);
  r.outcome = k.fits ? "starts" : "does-not-start";
  if (const Fact* assumed = ledger->fact(fact_id::kModelAssumed)) {
    r.text += "model assumed: " + std::get<std::string>(assumed->value) + "\n";
  }
  r.text += "outcome: " + r.outcome + "\n";
  if (k.kv_tokens) r.text += "kv tokens: " + format_count(*k.kv_tokens) + "\n";
  if (k.kv_bytes) r.text += "kv bytes per gpu: " + format_bytes(*k.kv_bytes) + "\n";
  if (k.max_running_requests) {
    r.text += "max running requests: " + format_count(*k.max_running_requests) + "\n";
  }
  if (k.failure) {
    r.text += "fails at: GPU " + std::to_string(k.failure->gpu) + ", " + k.failure->step + ": " +
              k.failure->message + "\n";
    if (k.failure->shortfall) r.text += "short by: " + format_bytes(*k.failure->shortfall) + "\n";
  }
  return r;
}

class LaunchCorpus : public testing::TestWithParam<std::string> {};

TEST_P(LaunchCorpus, SimulatesOrIsRefusedExactly) {
  const CorpusRow row = read_row(kCorpus / "commands" / (GetParam() + ".cmd"));
  ASSERT_FALSE(row.source.empty()) << "every row names its source";
  const RowResult got = run_row(row);
  EXPECT_EQ(got.outcome, row.outcome) << got.text;
  const fs::path expected = kCorpus / "expected" / (row.name + ".txt");
  const char* update = std::getenv("GPUMEM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected, std::ios::binary) << got.text;
    return;
  }
  EXPECT_EQ(got.text, read_text(expected));
  if (got.outcome != "refused-command") {
    EXPECT_NE(got.text.find("engine: " + row.engine + " "), std::string::npos)
        << "the row says engine " << row.engine;
  }
}

INSTANTIATE_TEST_SUITE_P(Rows, LaunchCorpus, testing::ValuesIn(corpus_rows()),
                         [](const testing::TestParamInfo<std::string>& row) {
                           std::string name = row.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(ShellSplit, QuotesEscapesContinuationsAndTheCommandsEnd) {
  ShellCommand c = split_shell("A=\"1,2\" vllm serve \\\n  m --x '{\"a\": [1]}'\\\n --y &\n");
  EXPECT_EQ(c.words, (std::vector<std::string>{"A=1,2", "vllm", "serve", "m", "--x", "{\"a\": [1]}",
                                               "--y"}));
  EXPECT_EQ(c.rest, "");
  c = split_shell("vllm serve m \\\n  --tp 4\n  --other\n");
  EXPECT_EQ(c.words, (std::vector<std::string>{"vllm", "serve", "m", "--tp", "4"}));
  EXPECT_EQ(c.rest, "--other");
  EXPECT_EQ(split_shell("vllm serve $MODEL").error, "an expansion: $");
  EXPECT_EQ(split_shell("a \"b\\\"c\" d\\ e").words,
            (std::vector<std::string>{"a", "b\"c", "d e"}));
}

}  // namespace
}  // namespace gpumem
