// vLLM's start-up lines, V0 (worker.py, model_runner.py, executor) and V1
// (v1/worker/gpu_worker.py, gpu_model_runner.py, v1/core/kv_cache_utils.py) wordings from
// v0.5 to v0.21. vLLM prints GiB; V0 labels some of them "GB" (model_runner.py divides by
// 2**30 too).
#include "explain/logged_flags.h"
#include "explain/python_literal.h"
#include "explain/run_collector.h"

namespace gpumem {
namespace {

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

// "0.90" as vLLM's --gpu-memory-utilization value.
void utilization(RunCollector& c, const LogLine& l, std::string_view key) {
  const std::optional<PrintedNumber> n = number_after(l.message, key);
  if (!n || !c.within_bounds("gpu_memory_utilization", FigureUnit::kRatio, false, *n, l)) return;
  c.printed_flag(l, "--gpu-memory-utilization", l.message.substr(n->begin, n->length), n->begin);
}

void max_model_len(RunCollector& c, const LogLine& l, std::string_view key) {
  if (std::optional<PrintedNumber> n = number_after(l.message, key)) {
    c.printed_count_flag(l, *n, "--max-model-len");
  }
}

void model_from(RunCollector& c, const LogLine& l, const PyValue& v) {
  if (v.kind != PyValue::Kind::kString) return;
  c.run().model = v.text;
  c.run().model_line = l.number;
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
    } else if (std::optional<LoggedFlag> f =
                   flag_from_python(LogEngine::kVllm, item.key, item.value, l.number, source)) {
      f->column = l.column + static_cast<int>(base + item.value_offset);
      c.flag(std::move(*f));
    }
  }
}

// "(v0.10.2)" in "Initializing a V1 LLM engine (v0.10.2) with config: ...".
void version_in_parentheses(RunCollector& c, const LogLine& l) {
  const size_t open = l.message.find("(v");
  const size_t close = open == std::string::npos ? open : l.message.find(')', open);
  if (close == std::string::npos) return;
  c.run().version = l.message.substr(open + 2, close - open - 2);
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

void read_memory_summary(const LogLine& l, RunCollector& c) {
  // gpu_worker.py compile_or_warm_up_model (v0.10.2 on): "Free memory on device (78.66/79.19
  // GiB) on startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual usage is W
  // GiB for weight, A GiB for peak activation, N GiB for non-torch memory, and G GiB for
  // CUDAGraph memory. ... Current kv cache memory in use is B bytes."
  const std::string_view m = l.message;
  figure(c, l, "Free memory on device (", Quantity::kFreeAtStartup, true);
  figure(c, l, "/", Quantity::kTotalMemory, true);
  utilization(c, l, "utilization is (");
  if (const size_t comma = m.find("utilization is ("); comma != std::string_view::npos) {
    figure(c, l, m.substr(comma, m.find(',', comma) - comma + 1), Quantity::kRequestedMemory, true);
  }
  figure(c, l, "Actual usage is ", Quantity::kModelLoading, true);
  figure(c, l, "for weight, ", Quantity::kActivationPeak, true);
  figure(c, l, "for peak activation, ", Quantity::kNonTorchMemory, true);
  figure(c, l, "memory, and ", Quantity::kGraphUsage, true);
  if (std::optional<PrintedNumber> b = number_after(m, "kv cache memory in use is ")) {
    // Bytes: kept in GiB, exactly (a power-of-two division).
    PrintedNumber gib = *b;
    gib.value /= static_cast<double>(1LL << 30);
    c.restate(Quantity::kAvailableKvMemory, gib, l);
  }
  c.clue("0.10.2", "", "the kv-cache-memory suggestion line", l.number);
}

}  // namespace

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
  } else if (contains(m, "vLLM API server version")) {
    const size_t at = m.find_first_of("0123456789", m.find("version"));
    if (at != std::string_view::npos) {
      const size_t end = m.find_first_of(" \t", at);
      c.run().version = std::string(m.substr(at, end == std::string_view::npos ? end : end - at));
      c.run().version_line = l.number;
    }
  } else if (starts_with(m, "Loading model weights took")) {
    figure(c, l, "took", Quantity::kModelLoading);
    c.clue("", "0.10.1", "V0 wording 'Loading model weights took'", l.number);
    c.phase("weights", l.number);
  } else if (starts_with(m, "Model loading took")) {
    figure(c, l, "took", Quantity::kModelLoading);
    if (contains(m, "GiB memory")) {
      c.clue("0.11.0", "", "'Model loading took ... GiB memory'", l.number);
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
  } else if (starts_with(m, "model weights take")) {
    figure(c, l, "model weights take", Quantity::kModelLoading);
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
             starts_with(m, "GPU blocks:")) {
    if (!figure(c, l, "GPU blocks:", Quantity::kGpuBlocks)) {
      figure(c, l, "CUDA blocks:", Quantity::kGpuBlocks);
    }
    c.clue("", "0.10.1", "V0 '# GPU blocks'", l.number);
    c.phase("kv cache", l.number);
  } else if (starts_with(m, "Available KV cache memory:")) {
    figure(c, l, "memory:", Quantity::kAvailableKvMemory);
  } else if (starts_with(m, "GPU KV cache size:")) {
    figure(c, l, "size:", Quantity::kKvTokens);
    c.phase("kv cache", l.number);
  } else if (starts_with(m, "Maximum concurrency for")) {
    max_model_len(c, l, "Maximum concurrency for");
    figure(c, l, "per request:", Quantity::kMaxConcurrency);
  } else if (starts_with(m, "Estimated CUDA graph memory:")) {
    figure(c, l, "memory:", Quantity::kCudaGraphEstimate);
    c.clue("0.17.0", "", "'Estimated CUDA graph memory'", l.number);
  } else if (starts_with(m, "Graph capturing finished")) {
    figure(c, l, "took", Quantity::kGraphUsage);
    c.phase("cuda graphs done", l.number);
  } else if (starts_with(m, "Capturing the model for CUDA graphs") ||
             starts_with(m, "Capturing cudagraphs") || starts_with(m, "Capturing CUDA graph")) {
    c.phase("cuda graphs", l.number);
  } else if (starts_with(m, "Free memory on device (")) {
    if (contains(m, "less than desired")) {
      figure(c, l, "Free memory on device (", Quantity::kFreeAtStartup);
      figure(c, l, "/", Quantity::kTotalMemory);
      utilization(c, l, "utilization (");
      c.problem(ProblemKind::kBudget, l);
    } else {
      read_memory_summary(l, c);
    }
  } else if (contains(m, "padding layers, may waste")) {
    c.run().notes.push_back("line " + std::to_string(l.number) + ": " + std::string(m));
  } else if (contains(m, "is larger than the maximum number of tokens that can be stored")) {
    max_model_len(c, l, "max seq len (");
    figure(c, l, "stored in KV cache (", Quantity::kKvTokensStorable);
    c.problem(ProblemKind::kKvCacheTooSmall, l);
  } else if (contains(m, "To serve at least one request with the models's max seq len")) {
    max_model_len(c, l, "max seq len (");
    c.problem(ProblemKind::kKvCacheTooSmall, l);
  } else if (contains(m, "No available memory for the cache blocks")) {
    c.problem(ProblemKind::kNoKvMemory, l);
  } else if (contains(m, "CUDA out of memory") || contains(m, "OutOfMemoryError")) {
    c.problem(ProblemKind::kOutOfMemory, l);
  } else {
    return false;
  }
  return true;
}

}  // namespace gpumem
