// vLLM's start-up lines, V0 (worker.py, model_runner.py, executor) and V1
// (v1/worker/gpu_worker.py, gpu_model_runner.py, v1/core/kv_cache_utils.py) wordings from
// v0.5 to v0.21. vLLM prints GiB; V0 labels some of them "GB" (model_runner.py divides by
// 2**30 too).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "explain/logged_flags.h"
#include "explain/python_literal.h"
#include "explain/run_collector.h"

namespace gpumem {
namespace {

// The figure after `key` as one of several that vLLM's engine process prints once per worker.
bool per_worker(RunCollector& c, const LogLine& l, std::string_view key, Quantity q) {
  const std::optional<PrintedNumber> n = number_after(l.message, key);
  return n && c.add_per_worker(q, *n, l);
}

bool figure(RunCollector& c, const LogLine& l, std::string_view key, Quantity q,
            bool restated = false) {
  const std::optional<PrintedNumber> n = number_after(l.message, key);
  if (!n) return false;
  if (restated) {
    c.restate(q, *n, l);
  } else {
    c.add(q, *n, l);
  }
  return true;
}

// Half the last printed digit of a number: how far the printed value may be from the true one.
double printed_half(const PrintedNumber& n) {
  return n.decimals < 0 ? 0.0 : 0.5 * std::pow(10.0, -n.decimals);
}

// V0's "total_gpu_memory (23.58GiB) x gpu_memory_utilization (0.94) = 22.29GiB" prints the
// utilization with two decimals (vllm v0.6 worker/worker.py determine_num_available_blocks,
// "%.2f"), so a launch with 0.945 prints 0.94 and the budget says otherwise. The value the
// engine used lies where all three printed numbers agree: the shortest decimal there, nearest
// the middle, replaces the printed one (a user types 0.945, not 0.94529); the printed one stays
// when it agrees, or when nothing does.
std::optional<std::string> utilization_the_budget_implies(const LogLine& l) {
  const std::string_view m = l.message;
  const std::optional<PrintedNumber> total = number_after(m, "total_gpu_memory (");
  const std::optional<PrintedNumber> util = number_after(m, "gpu_memory_utilization (");
  const std::optional<PrintedNumber> budget = number_after(m, ") = ");
  if (!total || !util || !budget || total->value <= 0 || util->decimals < 0) return std::nullopt;
  const double lo =
      std::max((budget->value - printed_half(*budget)) / (total->value + printed_half(*total)),
               util->value - printed_half(*util));
  const double hi = std::min(
      (budget->value + printed_half(*budget)) / std::max(total->value - printed_half(*total), 1e-9),
      util->value + printed_half(*util));
  if (lo > hi || (util->value >= lo && util->value <= hi)) return std::nullopt;
  for (int digits = util->decimals + 1; digits <= 4; ++digits) {
    const double scale = std::pow(10.0, digits);
    const double first = std::ceil(lo * scale - 1e-9);
    const double last = std::floor(hi * scale + 1e-9);
    if (first > last) continue;
    const double middle = (lo + hi) / 2 * scale;
    const double k = std::clamp(std::round(middle), first, last);
    return fmt::format("{:.{}f}", k / scale, digits);
  }
  return std::nullopt;
}

// "0.90" as vLLM's --gpu-memory-utilization value, within its bounds; V0's rounded print is
// replaced by what its budget implies.
void utilization(RunCollector& c, const LogLine& l, std::string_view key) {
  const std::optional<PrintedNumber> n = number_after(l.message, key);
  if (!n || !c.within_bounds("gpu_memory_utilization", FigureUnit::kRatio, false, *n, l)) return;
  std::string value(l.message.substr(n->begin, n->length));
  if (const std::optional<std::string> u = utilization_the_budget_implies(l)) {
    value = *u;
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": the utilization is printed with two decimals; the total and "
                            "the budget beside it say " +
                            value);
  }
  c.printed_flag(l, "--gpu-memory-utilization", value, n->begin);
}

// The budget printed after the utilization, "<key>0.9, 71.27 GiB)": the figure after the
// first comma that follows `key`; nothing when the line has no such comma (cut short).
// `restated` as for figure().
void requested_memory(RunCollector& c, const LogLine& l, std::string_view key, bool restated) {
  const std::string_view m = l.message;
  const size_t at = m.find(key);
  if (at == std::string_view::npos) return;
  const size_t comma = m.find(',', at);
  if (comma == std::string_view::npos) return;
  figure(c, l, m.substr(at, comma - at + 1), Quantity::kRequestedMemory, restated);
}

void max_model_len(RunCollector& c, const LogLine& l, std::string_view key) {
  if (std::optional<PrintedNumber> n = number_after(l.message, key)) {
    c.printed_count_flag(l, *n, "--max-model-len", key == "Maximum concurrency for");
  }
}

void model_from(RunCollector& c, const LogLine& l, const PyValue& v) {
  if (v.kind != PyValue::Kind::kString) return;
  c.run().model = v.text;
  c.run().model_line = l.number;
}

// The engine-config dump's `SpeculativeConfig(method='mtp', model='M', num_spec_tokens=2)` (vllm
// config/speculative.py SpeculativeConfig.__repr__) as the --speculative-config JSON a user
// gives: num_spec_tokens is num_speculative_tokens; an MTP draft named as the target itself is
// the target's own layers (__post_init__ fills `model` with the target's when none is given).
std::optional<std::string> speculative_config_json(const PyValue& v, std::string_view target) {
  constexpr std::string_view kOpen = "SpeculativeConfig(";
  if (v.kind != PyValue::Kind::kOther || !v.text.starts_with(kOpen) || !v.text.ends_with(")")) {
    return std::nullopt;
  }
  const std::string_view inner =
      std::string_view(v.text).substr(kOpen.size(), v.text.size() - kOpen.size() - 1);
  const PyItems items = parse_keyword_items(inner);
  if (items.error) return std::nullopt;
  std::string method;
  for (const PyItem& i : items.items) {
    if (i.key == "method") method = i.value.text;
  }
  // Each key and value written as JSON, not pasted text: a string from the log is escaped,
  // and Python's True/False/None read as JSON's true/false/null.
  std::string json;
  for (const PyItem& i : items.items) {
    std::string key = i.key == "num_spec_tokens" ? "num_speculative_tokens" : i.key;
    if (key == "model" && (i.value.kind == PyValue::Kind::kNone ||
                           (method.ends_with("mtp") && i.value.text == target))) {
      continue;
    }
    nlohmann::json value;
    switch (i.value.kind) {
      case PyValue::Kind::kInt:
      case PyValue::Kind::kFloat:
        value = nlohmann::json::parse(i.value.text, nullptr, false);
        if (!value.is_number()) value = i.value.text;
        break;
      case PyValue::Kind::kBool:
        value = i.value.text == "True";
        break;
      case PyValue::Kind::kNone:
        value = nullptr;
        break;
      default:
        value = i.value.text;
    }
    const auto dump = [](const nlohmann::json& j) {
      return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    json += (json.empty() ? "" : ", ") + dump(key) + ": " + dump(value);
  }
  return "{" + json + "}";
}

// The items of an argument dump that starts `base` bytes into the line's message.
void read_config_items(const PyItems& items, size_t base, const LogLine& l, RunCollector& c,
                       const std::string& source) {
  if (items.error) {
    c.refuse(l, base + items.error->offset, items.error->message);
    return;
  }
  for (const PyItem& item : items.items) {
    if (is_model_key(LogEngine::kVllm, item.key)) {
      model_from(c, l, item.value);
    } else if (source == "engine config" && item.key == "compilation_config") {
      // The engine's resolved configuration (its capture sizes, its mode), not flags a user
      // gave: replaying it as flags would pin what gpumem's rules for the release compute.
      c.run().notes.push_back("line " + std::to_string(l.number) +
                              ": compilation_config of the engine config is resolved, not "
                              "given; not used as a flag");
    } else if (std::optional<LoggedFlag> f =
                   flag_from_python(LogEngine::kVllm, item.key, item.value, l.number, source)) {
      if (item.key == "speculative_config") {
        if (std::optional<std::string> json =
                speculative_config_json(item.value, c.run().model.value_or(""))) {
          f->values = {*json};
        }
      }
      if (source == "engine config" &&
          !find_flag_spec(LogEngine::kVllm, f->flag)->not_modelled.empty()) {
        // A value the engine resolved (KernelConfig(...), the DCP size in v0.23's dump), maybe
        // its default: a user's own setting is in the non-default args, where it is refused.
        c.run().notes.push_back("line " + std::to_string(l.number) + ": " + item.key +
                                " of the engine config is resolved, not given; not used as a "
                                "flag");
        continue;
      }
      f->column = l.column + static_cast<int>(base + item.value_offset);
      c.flag(std::move(*f));
    } else if (source == "non-default args" && item.key != "model_tag" &&
               find_flag_spec(LogEngine::kVllm, flag_name_for_key(LogEngine::kVllm, item.key)) ==
                   nullptr) {
      // A flag the user gave (the dump holds only those) that gpumem does not know: said, so
      // that a replay without it is not taken for one with it.
      c.run().notes.push_back("line " + std::to_string(l.number) + ": " +
                              flag_name_for_key(LogEngine::kVllm, item.key) +
                              " is not a flag gpumem models; ignored");
    }
  }
}

// "(v0.10.2)" in "Initializing a V1 LLM engine (v0.10.2) with config: ...".
void version_in_parentheses(RunCollector& c, const LogLine& l) {
  const size_t open = l.message.find("(v");
  const size_t close = open == std::string::npos ? open : l.message.find(')', open);
  if (close == std::string::npos) return;
  c.run().version = l.message.substr(open + 2, close - open - 2);
  c.run().version_from_image_tag = false;
  c.run().version_line = l.number;
}

void read_profile_summary(const LogLine& l, RunCollector& c) {
  // worker.py (vLLM ~0.6.4): "Memory profiling results: total_gpu_memory=23.58GiB
  // initial_memory_usage=... peak_torch_memory=17.06GiB ... non_torch_memory=0.35GiB
  // kv_cache_size=3.81GiB gpu_memory_utilization=0.90"
  figure(c, l, "total_gpu_memory=", Quantity::kTotalMemory);
  figure(c, l, "peak_torch_memory=", Quantity::kPeakTorchMemory);
  figure(c, l, "non_torch_memory=", Quantity::kNonTorchMemory);
  figure(c, l, "kv_cache_size=", Quantity::kAvailableKvMemory);
  utilization(c, l, "gpu_memory_utilization=");
}

// "Actual usage is 14.08 GiB for weight, 1.97 GiB for peak activation, 0.07 GiB for
// non-torch memory, and 0.67 GiB for CUDAGraph memory." (v0.10.2 on) or, with the newest
// accounting, "40.33 GiB for consumed memory (weights + non-torch), 3.12 GiB for peak
// activation, and 2.51 GiB for CUDAGraph memory.": each "X GiB for <what>" by its label.
void read_actual_usage(const LogLine& l, RunCollector& c) {
  static const std::pair<std::string_view, Quantity> kLabels[] = {
      {"weight", Quantity::kModelLoading},
      {"consumed memory (weights + non-torch)", Quantity::kConsumedMemory},
      {"peak activation", Quantity::kActivationPeak},
      {"non-torch memory", Quantity::kNonTorchMemory},
      {"CUDAGraph memory", Quantity::kGraphUsage}};
  const std::string_view m = l.message;
  const size_t start = m.find("Actual usage is ");
  if (start == std::string_view::npos) return;
  size_t p = start + 16;
  while (p < m.size()) {
    if (m.substr(p, 4) == "and ") p += 4;
    std::optional<PrintedNumber> n = number_at(m.substr(p));
    if (!n) return;
    n->begin += p;
    p = n->begin + n->length;
    if (m.substr(p, 9) != " GiB for ") return;
    p += 9;
    // The label runs to the ", " or "." that ends the item, outside parentheses.
    size_t end = p;
    for (int depth = 0; end < m.size(); ++end) {
      if (m[end] == '(') ++depth;
      if (m[end] == ')') --depth;
      if (depth == 0 && (m[end] == ',' || m[end] == '.')) break;
    }
    const std::string_view label = m.substr(p, end - p);
    bool known = false;
    for (const auto& [name, q] : kLabels) {
      if (label != name) continue;
      known = true;
      if (!c.restate(q, *n, l)) return;
    }
    if (!known) {
      c.run().notes.push_back("line " + std::to_string(l.number) + ": '" + std::string(label) +
                              "' is not a figure gpumem reads");
    }
    p = end + 1;
    while (p < m.size() && m[p] == ' ') ++p;
    if (end >= m.size() || m[end] == '.') return;
  }
}

// The words before the figures of vLLM's free-memory line: "Free memory on device (" or, from
// the releases that name the device (gpu_worker.py init_device), "Free memory on device
// cuda:0 ("; "" when the message holds neither.
std::string free_memory_key(std::string_view m) {
  constexpr std::string_view kWords = "Free memory on device";
  const size_t at = m.find(kWords);
  if (at == std::string_view::npos) return "";
  const size_t open = m.find('(', at + kWords.size());
  // A device name is one word ("cuda:0"); anything longer is another sentence.
  if (open == std::string_view::npos || open > at + kWords.size() + 16) return "";
  const std::string_view between = m.substr(at + kWords.size(), open - at - kWords.size());
  if (between != " " &&
      (between.front() != ' ' || between.back() != ' ' ||
       between.substr(1, between.size() - 2).find(' ') != std::string_view::npos)) {
    return "";
  }
  return std::string(m.substr(at, open + 1 - at));
}

void read_memory_summary(const LogLine& l, RunCollector& c) {
  // gpu_worker.py compile_or_warm_up_model (v0.10.2 on): "Free memory on device (78.66/79.19
  // GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual usage is ...
  // Replace gpu_memory_utilization config with `--kv-cache-memory=...` ... Current kv cache
  // memory in use is B bytes." — newer releases print the last figure in GiB. The
  // suggested --kv-cache-memory values are derived from the figures read here.
  const std::string_view m = l.message;
  figure(c, l, free_memory_key(m), Quantity::kFreeAtStartup, true);
  figure(c, l, "/", Quantity::kTotalMemory, true);
  utilization(c, l, "utilization is (");
  requested_memory(c, l, "utilization is (", true);
  read_actual_usage(l, c);
  if (std::optional<PrintedNumber> b = number_after(m, "kv cache memory in use is ")) {
    // "... is 59212694937 bytes." (v0.10.2) or "... is 43.4 GiB." (newer): the unit decides;
    // a line cut before its unit is read by the number's form (a fraction is not bytes).
    const std::string_view unit = m.substr(b->begin + b->length);
    PrintedNumber gib = *b;
    if (unit.starts_with(" byte") || (!unit.starts_with(" G") && b->decimals < 0)) {
      // Bytes: kept in GiB, exactly (a power-of-two division).
      gib.value /= static_cast<double>(1LL << 30);
    }
    c.restate(Quantity::kAvailableKvMemory, gib, l);
  }
  c.clue("0.10.2", "", "the kv-cache-memory suggestion line", l.number);
  if (contains(m, "for consumed memory")) {
    c.clue("0.22.0", "", "'GiB for consumed memory (weights + non-torch)'", l.number);
  }
}

// vllm v0.10.2 v1/core/kv_cache_utils.py check_enough_kv_cache_memory: "To serve at least one
// request with the models's max seq len (L), (N GiB KV cache is needed, which is larger than
// the available KV cache memory (A GiB). Based on the available memory, the estimated maximum
// model length is E. ..." — later "model's", and the newest without the '(' before N.
void read_kv_too_small(const LogLine& l, RunCollector& c) {
  if (c.repeated_failure(l)) return;
  const std::string_view m = l.message;
  max_model_len(c, l, "max seq len (");
  if (const size_t needed = m.find(" GiB KV cache is needed"); needed != std::string_view::npos) {
    size_t start = m.rfind(' ', needed - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    if (start < needed && m[start] == '(') ++start;
    if (std::optional<PrintedNumber> n = number_at(m.substr(start, needed - start))) {
      n->begin += start;
      if (!c.add(Quantity::kKvCacheNeeded, *n, l)) return;
    }
  }
  figure(c, l, "available KV cache memory (", Quantity::kAvailableKvMemory, true);
  figure(c, l, "estimated maximum model length is ", Quantity::kKvTokensStorable);
  if (contains(m, "models's")) {
    c.clue("", "0.14.0", "'the models's max seq len' (before format_gib)", l.number);
  } else {
    c.clue("0.14.0", "", "'the model's max seq len' (format_gib wording)", l.number);
  }
  c.problem(ProblemKind::kKvCacheTooSmall, l);
}

// "Model loading took 7.64 GiB and 32.97 seconds": Model Runner V2's weights line (vllm
// v1/worker/gpu/model_runner.py load_model) from 0.22 (PR #44106's log) to 0.27.1 (public
// logs of 0.27.1 at model_runner.py:329; 0.28.0's says "GiB memory"). V1 printed "GiB and" only
// before 0.11.0, with 4 decimals ("%.4f"); V2 formats the figure with format_gib: at most 2.
bool v2_weights_wording(std::string_view m) {
  if (!starts_with(m, "Model loading took") || contains(m, "GiB memory")) return false;
  const std::optional<PrintedNumber> n = number_after(m, "took");
  return n && n->decimals <= 2 && contains(m, " GiB and ");
}

}  // namespace

void note_model_runner(const LogLine& l, RunCollector& c) {
  LogRun& run = c.run();
  if (run.v2_model_runner) return;
  const std::string_view m = l.message;
  std::optional<bool> v2;
  std::string evidence;
  if (m == "Using V2 Model Runner") {
    // v1/worker/gpu_worker.py init_device (info_once).
    v2 = true;
    evidence = "'Using V2 Model Runner'";
  } else if (v2_weights_wording(m)) {
    v2 = true;
    evidence = "'Model loading took ... GiB and' with at most 2 decimals (Model Runner V2's)";
  } else if (contains(m, "using the V1 model runner instead")) {
    // config/vllm.py use_v2_model_runner: a feature V2 lacks, or no Triton.
    v2 = false;
    evidence = "the fallback to the V1 model runner";
  } else if (starts_with(l.source, "gpu_model_runner.py:")) {
    // V1's own file (V2's is model_runner.py, a name V0's worker/model_runner.py shared, so
    // only the worker's line tells V2).
    v2 = false;
    evidence = "a line of the V1 model runner (" + l.source + ")";
  }
  if (!v2) return;
  run.v2_model_runner = v2;
  run.model_runner_line = l.number;
  run.model_runner_evidence = std::move(evidence);
}

bool read_vllm_line(const LogLine& l, RunCollector& c) {
  const std::string_view m = l.message;
  if (contains(m, "non-default args:")) {
    c.start_of_run();
    const size_t base = m.find("non-default args:");
    read_config_items(parse_dict_items(m.substr(base)), base, l, c, "non-default args");
  } else if (contains(m, "LLM engine (v") && contains(m, "with config:")) {
    version_in_parentheses(c, l);
    const size_t base = m.find("with config:") + 12;
    read_config_items(parse_keyword_items(m.substr(base)), base, l, c, "engine config");
  } else if (contains(m, "\xe2\x96\x88") && contains(m, " version ")) {
    // The start-up banner (v0.11 on), drawn in block characters: "... version 0.19.0".
    const size_t at = m.find(" version ") + 9;
    const size_t end = m.find_first_of(" \t", at);
    c.run().version = std::string(m.substr(at, end == std::string_view::npos ? end : end - at));
    c.run().version_from_image_tag = false;
    c.run().version_line = l.number;
  } else if (contains(m, "vLLM API server version")) {
    const size_t at = m.find_first_of("0123456789", m.find("version"));
    if (at != std::string_view::npos) {
      const size_t end = m.find_first_of(" \t", at);
      c.run().version = std::string(m.substr(at, end == std::string_view::npos ? end : end - at));
      c.run().version_from_image_tag = false;
      c.run().version_line = l.number;
    }
  } else if (starts_with(m, "Resolved architecture: ")) {
    // vllm v0.10.2 config/__init__.py ModelConfig.__post_init__: the model class it serves.
    std::string_view name = m.substr(m.find(':') + 2);
    name = name.substr(0, name.find_first_of(" \t"));
    c.run().architecture = std::string(name);
  } else if (starts_with(m, "Loading model weights took")) {
    figure(c, l, "took", Quantity::kModelLoading);
    c.clue("", "0.10.1", "V0 wording 'Loading model weights took'", l.number);
    c.phase("weights", l.number);
  } else if (starts_with(m, "Model loading took")) {
    figure(c, l, "took", Quantity::kModelLoading);
    if (contains(m, "GiB memory")) {
      c.clue("0.11.0", "", "'Model loading took ... GiB memory'", l.number);
    } else if (v2_weights_wording(m)) {
      c.clue("0.22.0", "0.28.0",
             "'Model loading took ... GiB and' with at most 2 decimals (Model Runner V2 before "
             "0.28.0)",
             l.number);
    } else {
      c.clue("", "0.11.0", "'Model loading took ... GiB and' (no 'memory')", l.number);
    }
    if (std::optional<PrintedNumber> n = number_after(m, "took"); n && n->decimals == 4) {
      c.clue("", "0.14.0", "weights printed with 4 decimals (before format_gib)", l.number);
    }
    c.phase("weights", l.number);
  } else if (starts_with(m, "Memory profiling results")) {
    c.clue("", "0.10.1", "V0 'Memory profiling results'", l.number);
    if (contains(m, "total_gpu_memory=")) read_profile_summary(l, c);
    c.phase("profile", l.number);
  } else if (starts_with(m, "total_gpu_memory")) {
    figure(c, l, "total_gpu_memory", Quantity::kTotalMemory);
  } else if (starts_with(m, "gpu_memory_utilization")) {
    utilization(c, l, "gpu_memory_utilization");
  } else if (starts_with(m, "the current vLLM instance can use")) {
    if (contains(m, "total_gpu_memory (")) {
      figure(c, l, "total_gpu_memory (", Quantity::kTotalMemory);
      utilization(c, l, "gpu_memory_utilization (");
      figure(c, l, ") = ", Quantity::kRequestedMemory);
    } else {
      figure(c, l, "can use", Quantity::kRequestedMemory);
    }
    c.clue("", "0.10.1", "V0 'the current vLLM instance can use'", l.number);
  } else if (starts_with(m, "Starting to load model ")) {
    // gpu_model_runner.py load_model: "Starting to load model openai/gpt-oss-120b..."
    if (!c.run().model) {
      std::string name(m.substr(23));
      while (!name.empty() && name.back() == '.') name.pop_back();
      c.run().model = name;
      c.run().model_line = l.number;
    }
  } else if (starts_with(m, "model weights take")) {
    // The V0 profile restates the weights "Loading model weights took" printed.
    figure(c, l, "model weights take", Quantity::kModelLoading, true);
    figure(c, l, "non_torch_memory takes", Quantity::kNonTorchMemory);
    figure(c, l, "activation peak memory takes", Quantity::kActivationPeak);
    figure(c, l, "reserved for KV Cache is", Quantity::kAvailableKvMemory);
  } else if (starts_with(m, "non_torch_memory")) {
    figure(c, l, "non_torch_memory", Quantity::kNonTorchMemory);
  } else if (starts_with(m, "PyTorch activation peak memory")) {
    figure(c, l, "memory", Quantity::kActivationPeak);
  } else if (starts_with(m, "available_kv_cache_memory")) {
    figure(c, l, "available_kv_cache_memory", Quantity::kAvailableKvMemory);
  } else if (contains(m, "# GPU blocks:") || contains(m, "# CUDA blocks:") ||
             contains(m, "# cuda blocks:") || starts_with(m, "GPU blocks:")) {
    // gpu_executor.py (<= 0.6.6) "# GPU blocks", executor_base.py "# CUDA blocks" (0.7.x),
    // "# cuda blocks" (0.8.x V0).
    if (!figure(c, l, "GPU blocks:", Quantity::kGpuBlocks) &&
        !figure(c, l, "CUDA blocks:", Quantity::kGpuBlocks)) {
      figure(c, l, "cuda blocks:", Quantity::kGpuBlocks);
    }
    c.clue("", "0.10.1", "V0 '# GPU blocks'", l.number);
    c.phase("kv cache", l.number);
  } else if (starts_with(m, "Available KV cache memory:")) {
    figure(c, l, "memory:", Quantity::kAvailableKvMemory);
    // gpu_worker.py: an INFO line from v0.9.2 (PR #19312); format_gib (no trailing zeros,
    // "21.5 GiB") from the memory-utils refactor, two decimals always before it.
    c.clue("0.9.2", "", "'Available KV cache memory' at INFO", l.number);
    if (const std::optional<PrintedNumber> n = number_after(m, "memory:");
        n && n->decimals >= 0 && n->decimals < 2) {
      c.clue("0.14.0", "", "'Available KV cache memory' without two decimals (format_gib)",
             l.number);
    }
  } else if (starts_with(m, "GPU KV cache size:")) {
    per_worker(c, l, "size:", Quantity::kKvTokens);
    if (contains(m, "Maximum concurrency for")) {
      // kv_cache_utils.py update_kv_cache_capacity (v0.28 era): one line for both.
      max_model_len(c, l, "Maximum concurrency for");
      per_worker(c, l, "per request:", Quantity::kMaxConcurrency);
      c.clue("0.28.0", "", "KV cache size and concurrency on one line", l.number);
    }
    c.phase("kv cache", l.number);
  } else if (starts_with(m, "Maximum concurrency for")) {
    max_model_len(c, l, "Maximum concurrency for");
    per_worker(c, l, "per request:", Quantity::kMaxConcurrency);
  } else if (starts_with(m, "Estimated CUDA graph memory:")) {
    figure(c, l, "memory:", Quantity::kCudaGraphEstimate);
    c.clue("0.17.0", "", "'Estimated CUDA graph memory'", l.number);
  } else if (starts_with(m, "CUDA graph pool memory:")) {
    // gpu_worker.py (with the estimate): "CUDA graph pool memory: 2.51 GiB (actual), 2.44 GiB
    // (estimated), difference: ...": the capture and the estimate restated.
    figure(c, l, "memory:", Quantity::kGraphUsage, true);
    figure(c, l, "(actual), ", Quantity::kCudaGraphEstimate, true);
    c.clue("0.17.0", "", "'CUDA graph pool memory' (the CUDA-graph estimate)", l.number);
  } else if (starts_with(m, "CUDA graph memory profile:") && contains(m, "; estimate ")) {
    // Model Runner V2's profile_cudagraph_memory (gpu/cudagraph_utils.py, PR #53306, merged
    // in August 2026; 0.28.0 taken as the earliest release): "CUDA graph memory profile:
    // capture took X GiB with k of n FULL graphs (...); the other m FULL graphs add Y GiB;
    // estimate Z GiB." The estimate is what the KV budget leaves for the graphs.
    figure(c, l, "; estimate", Quantity::kCudaGraphEstimate);
    c.clue("0.28.0", "", "Model Runner V2's 'CUDA graph memory profile'", l.number);
  } else if (starts_with(m, "Cleared") &&
             contains(m, "of cached CUDA allocator memory before KV cache allocation")) {
    // gpu_worker.py of releases newer than gpumem models (2026): the caching allocator's free
    // blocks returned to the device (torch.cuda.empty_cache) before the KV cache is allocated;
    // the KV cache's size was fixed before it, from the profile.
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": the cached allocator memory released before the KV cache is not "
                            "compared (the KV cache was sized before the release): " +
                            std::string(m));
  } else if (starts_with(m, "Graph capturing finished")) {
    figure(c, l, "took", Quantity::kGraphUsage);
    c.phase("cuda graphs done", l.number);
  } else if (starts_with(m, "Capturing the model for CUDA graphs") ||
             starts_with(m, "Capturing cudagraphs") || starts_with(m, "Capturing CUDA graph")) {
    c.phase("cuda graphs", l.number);
  } else if (starts_with(m, "Initial free memory") &&
             contains(m, "as specified by kv_cache_memory_bytes")) {
    // gpu_worker.py determine_available_memory with --kv-cache-memory (v0.11 on): the free
    // memory at the init snapshot and the KV cache memory the flag reserves, no profile.
    figure(c, l, "Initial free memory", Quantity::kFreeAtStartup);
    figure(c, l, "reserved", Quantity::kAvailableKvMemory);
    c.phase("kv cache", l.number);
  } else if (const std::string free_key = free_memory_key(m);
             !free_key.empty() && (starts_with(m, free_key) || contains(m, "less than desired"))) {
    // gpu_worker.py init_device raises the budget error as a ValueError, so the line a
    // traceback ends with reads "ValueError: Free memory on device (...".
    if (contains(m, "less than desired")) {
      figure(c, l, free_key, Quantity::kFreeAtStartup);
      figure(c, l, "/", Quantity::kTotalMemory);
      utilization(c, l, "utilization (");
      requested_memory(c, l, "utilization (", false);
      c.problem(ProblemKind::kBudget, l);
    } else {
      read_memory_summary(l, c);
    }
  } else if (starts_with(m, "Initial free memory:") && contains(m, "Requested memory:")) {
    // gpu_worker.py determine_available_memory at DEBUG: "Initial free memory: 77.39 GiB;
    // Requested memory: 0.825000 (util), 65.32 GiB".
    figure(c, l, "Initial free memory:", Quantity::kFreeAtStartup, true);
    utilization(c, l, "Requested memory:");
    requested_memory(c, l, "Requested memory:", true);
  } else if (starts_with(m, "Memory profiling takes") && contains(m, "Total non KV cache memory")) {
    // gpu_worker.py determine_available_memory at DEBUG: "... Total non KV cache memory:
    // 33.68GiB; torch peak memory increase: 0.34GiB; non-torch forward increase memory:
    // 32.4GiB; weights memory: 0.93GiB." The total is the sum of the three.
    figure(c, l, "torch peak memory increase:", Quantity::kActivationPeak, true);
    figure(c, l, "non-torch forward increase memory:", Quantity::kNonTorchMemory, true);
    figure(c, l, "weights memory:", Quantity::kModelLoading, true);
    c.phase("profile", l.number);
  } else if (starts_with(m, "Free memory after profiling:")) {
    // gpu_worker.py at DEBUG: the free memory after the profile restates the figures above
    // (free at start-up less what the profile took; within the budget, the KV cache memory).
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": free memory after profiling is not compared (it restates the "
                            "budget less the profiled memory): " +
                            std::string(m));
  } else if (contains(m, "In v0.19, CUDA graph memory profiling will be enabled by default")) {
    // gpu_worker.py determine_available_memory with the estimate computed but not applied
    // (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS off; it became the default in v0.21.0):
    // "... increase --gpu-memory-utilization from 0.9000 to 0.9176 ...".
    c.clue("0.17.0", "0.21.0", "'In v0.19, CUDA graph memory profiling will be enabled'", l.number);
    utilization(c, l, "--gpu-memory-utilization from ");
  } else if (contains(m, "CUDA graph memory profiling is enabled (default since v0.21.0)")) {
    c.clue("0.21.0", "", "'CUDA graph memory profiling is enabled (default since v0.21.0)'",
           l.number);
    utilization(c, l, "The current --gpu-memory-utilization=");
    figure(c, l, "is equivalent to --gpu-memory-utilization=", Quantity::kEquivalentUtilization);
  } else if (starts_with(m, "Setting attention block size to ")) {
    // config.py HybridAttentionMambaModelConfig: the block that holds one GDN/Mamba state.
    figure(c, l, "block size to ", Quantity::kAttentionBlockSize);
  } else if (starts_with(m, "Encoder cache will be initialized with a budget of")) {
    // v1/worker/gpu_model_runner.py profile_run: the encoder budget and the dummy items the
    // multimodal encoder runs on before the language model's dummy forward.
    figure(c, l, "budget of", Quantity::kEncoderBudget);
    figure(c, l, "profiled with", Quantity::kEncoderItems);
  } else if (contains(m, "padding layers, may waste")) {
    c.run().notes.push_back("line " + std::to_string(l.number) + ": " + std::string(m));
  } else if (contains(m, "is larger than the maximum number of tokens that can be stored")) {
    if (c.repeated_failure(l)) return true;
    max_model_len(c, l, "max seq len (");
    figure(c, l, "stored in KV cache (", Quantity::kKvTokensStorable);
    c.problem(ProblemKind::kKvCacheTooSmall, l);
  } else if (contains(m, "To serve at least one request with the model")) {
    read_kv_too_small(l, c);
  } else if (contains(m, "No available memory for the cache blocks")) {
    c.problem(ProblemKind::kNoKvMemory, l);
  } else if (is_out_of_memory(m)) {
    c.problem(ProblemKind::kOutOfMemory, l);
  } else if (starts_with(m, "Enforce eager set") ||
             starts_with(m, "Cudagraph is disabled under eager mode")) {
    // config/vllm.py VllmConfig.__post_init__ (v0.11+: "Enforce eager set, disabling
    // torch.compile and CUDAGraphs", or "..., overriding optimization level to -O0"; v0.7 to
    // v0.10: "Cudagraph is disabled under eager mode"): --enforce-eager was given.
    c.printed_flag(l, "--enforce-eager", "true");
  } else if (const size_t at = m.find(" has no vLLM implementation, falling back to Transformers");
             at != std::string_view::npos) {
    // model_executor/model_loader/utils.py resolve_transformers_arch: the registry has no class
    // for the architecture, so the model runs on the Transformers backend, as --model-impl
    // transformers asks.
    c.printed_flag(l, "--model-impl", "transformers", at);
  } else if (starts_with(m, "Error executing method ")) {
    // v1/worker/worker_base.py execute_method: a worker's call failed ('load_model',
    // 'determine_available_memory', 'initialize_from_config' (the KV tensors), ...).
    c.problem(ProblemKind::kOtherError, l);
  } else if (starts_with(m, "EngineCore failed to start") ||
             starts_with(m, "WorkerProc hit an exception")) {
    // v1/engine/core.py run_engine_core, v1/executor/multiproc_executor.py: the start-up
    // stopped; the cause, when the excerpt holds it, is a line of its own.
    c.problem(ProblemKind::kOtherError, l);
  } else {
    return false;
  }
  return true;
}

}  // namespace gpumem
