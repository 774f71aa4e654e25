// SGLang's start-up lines (sglang v0.4.3 to v0.5.18 wordings; sources: model_runner.py
// init_torch_distributed / load_model / init_memory_pool / init_device_graphs,
// memory_pool.py, cuda_graph_runner.py, scheduler.py, server_args.py). SGLang prints GiB
// and labels them "GB".
#include "explain/logged_flags.h"
#include "explain/python_literal.h"
#include "explain/run_collector.h"

namespace gpumem {
namespace {

// The figure after `key`, added as `q` (or restated when `restated`).
bool figure(RunCollector& c, const LogLine& l, std::string_view key, Quantity q) {
  const std::optional<PrintedNumber> n = number_after(l.message, key);
  if (!n) return false;
  c.add(q, *n, l);
  return true;
}

// The process already printed its summary line: a later weight line is a new start-up.
bool ready(const RunCollector& c, const LogLine& l) {
  return c.printed(Quantity::kMaxRunningRequests, l.process) ||
         c.printed(Quantity::kFreeAtReady, l.process);
}

// A second weight or pool line of a process before its summary is the speculative draft's
// (speculative/eagle_worker.py builds a second ModelRunner on the same rank), unless it comes
// hours later: another launch pasted below a cut one.
bool draft_line(const RunCollector& c, const LogLine& l, Quantity target) {
  return c.printed(target, l.process) && !ready(c, l) && !c.long_after(target, l);
}

// A pool line after the process's draft weights is the draft's: the target's pool comes
// before the draft is loaded.
bool draft_pool_line(const RunCollector& c, const LogLine& l, Quantity target) {
  return draft_line(c, l, target) ||
         (c.printed(Quantity::kDraftWeightUsage, l.process) && !ready(c, l));
}

// A weight line after the process's KV pool (and before its summary) is a draft's, which
// speculative/eagle_worker.py loads once its target's pool is allocated; hours later it starts
// another launch (`another`).
bool after_target_pool(const RunCollector& c, const LogLine& l, bool& another) {
  if (!c.printed(Quantity::kKvTokens, l.process) || ready(c, l)) return false;
  another = c.long_after(Quantity::kKvTokens, l);
  return !another;
}

// A draft model's class, by the suffix SGLang's speculative models carry (models/
// deepseek_nextn.py DeepseekV3ForCausalLMNextN, glm4_moe_nextn.py, qwen3_next_mtp.py
// Qwen3NextForCausalLMMTP, mimo_mtp.py MiMoMTP, llama_eagle.py LlamaForCausalLMEagle,
// llama_eagle3.py LlamaForCausalLMEagle3): its weight line is the draft's even when the
// excerpt holds no line of the target's.
bool draft_architecture(std::string_view type) {
  // ... and Gemma 4's MTP assistants (Gemma4AssistantForCausalLM, sglang #24589).
  for (std::string_view suffix : {"NextN", "MTP", "Eagle", "Eagle3", "AssistantForCausalLM"}) {
    if (type.ends_with(suffix)) return true;
  }
  return false;
}

std::string word_after(std::string_view m, std::string_view key) {
  const size_t at = m.find(key);
  if (at == std::string_view::npos) return "";
  const size_t start = at + key.size();
  const size_t end = m.find_first_of(", ", start);
  return std::string(m.substr(start, end == std::string_view::npos ? end : end - start));
}

void read_server_args(const LogLine& l, RunCollector& c) {
  c.start_of_run();
  const std::string_view m = l.message;
  std::optional<std::string> served;
  const size_t base = m.find("server_args") + 11;
  const PyItems items = parse_keyword_items(m.substr(base));
  if (items.error) {
    c.refuse(l, base + items.error->offset, items.error->message);
    return;
  }
  for (const PyItem& item : items.items) {
    if (is_model_key(LogEngine::kSglang, item.key) && item.value.kind == PyValue::Kind::kString) {
      c.run().model = item.value.text;
      c.run().model_line = l.number;
    } else if (item.key == "served_model_name" && item.value.kind == PyValue::Kind::kString) {
      served = item.value.text;
    } else if (std::optional<LoggedFlag> f = flag_from_python(
                   LogEngine::kSglang, item.key, item.value, l.number, "server_args")) {
      f->column = l.column + static_cast<int>(base + item.value_offset);
      c.flag(std::move(*f));
    }
  }
  // A local checkpoint path says less than the name it is served under.
  if (served && (!c.run().model || c.run().model->find('/') == 0)) {
    c.run().model = *served;
    c.run().model_line = l.number;
  }
}

// "Capture cuda graph bs [1, 2, 4, 8]": the sizes SGLang captures, each a batch size within
// the bounds of a count.
void read_batch_sizes(const LogLine& l, RunCollector& c) {
  const std::optional<std::vector<PrintedNumber>> bs = number_list_after(l.message, "bs");
  if (!bs) {
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": the list of captured batch sizes is cut off; not used");
    return;
  }
  LoggedFlag f;
  f.flag = "--cuda-graph-bs";
  for (const PrintedNumber& b : *bs) {
    if (!c.within_bounds("a captured batch size", FigureUnit::kCount, false, b, l)) return;
    f.values.push_back(std::to_string(static_cast<long long>(b.value)));
  }
  f.is_list = true;
  f.line = l.number;
  f.column = l.column + static_cast<int>(l.message.find('['));
  f.source = "printed";
  c.flag(std::move(f));
}

void read_summary(const LogLine& l, RunCollector& c) {
  // scheduler.py: "max_total_num_tokens=N, chunked_prefill_size=N, max_prefill_tokens=N,
  // max_running_requests=N, context_len=N[, available_gpu_mem=X GB]".
  const std::string_view m = l.message;
  if (std::optional<PrintedNumber> t = number_after(m, "max_total_num_tokens=")) {
    if (!c.printed(Quantity::kKvTokens, l.process)) c.add(Quantity::kKvTokens, *t, l);
  }
  figure(c, l, "max_running_requests=", Quantity::kMaxRunningRequests);
  figure(c, l, "available_gpu_mem=", Quantity::kFreeAtReady);
  // The summary ends with available_gpu_mem from v0.4.7 (engine/sglang/version.h).
  if (!contains(m, "available_gpu_mem=")) {
    c.clue("", "0.4.7", "the summary line without 'available_gpu_mem='", l.number);
  }
  for (const auto& [key, flag] :
       {std::pair<std::string_view, std::string>{"chunked_prefill_size=", "--chunked-prefill-size"},
        {"max_prefill_tokens=", "--max-prefill-tokens"},
        {"context_len=", "--context-length"}}) {
    if (std::optional<PrintedNumber> n = number_after(m, key)) c.printed_count_flag(l, *n, flag);
  }
  c.phase("ready", l.number);
}

}  // namespace

bool read_sglang_line(const LogLine& l, RunCollector& c) {
  const std::string_view m = l.message;
  if (starts_with(m, "server_args")) {
    read_server_args(l, c);
  } else if (contains(m, "Init torch distributed ends")) {
    figure(c, l, "mem usage=", Quantity::kInitDistributedUsage);
    c.phase("distributed", l.number);
    // model_runner.py init_torch_distributed: "elapsed=" from v0.5.7 (PR #15426).
    if (contains(m, "elapsed=")) {
      c.clue("0.5.7", "", "'Init torch distributed ends. elapsed='", l.number);
    } else {
      c.clue("", "0.5.7", "'Init torch distributed ends' without 'elapsed='", l.number);
    }
  } else if (starts_with(m, "Load weight begin")) {
    bool another = false;
    const bool draft = after_target_pool(c, l, another);
    if (another) c.start_of_run();
    if (!draft && !draft_line(c, l, Quantity::kFreeBeforeWeights)) {
      figure(c, l, "avail mem=", Quantity::kFreeBeforeWeights);
    }
  } else if (starts_with(m, "Load weight end")) {
    bool another = false;
    const bool after_pool = after_target_pool(c, l, another);
    if (another) c.start_of_run();
    if (after_pool || draft_line(c, l, Quantity::kWeightUsage) ||
        draft_architecture(word_after(m, "type="))) {
      figure(c, l, "mem usage=", Quantity::kDraftWeightUsage);
      c.phase("draft weights", l.number);
    } else {
      figure(c, l, "avail mem=", Quantity::kFreeAfterWeights);
      figure(c, l, "mem usage=", Quantity::kWeightUsage);
      c.run().architecture = word_after(m, "type=");
      c.run().dtype = word_after(m, "dtype=");
      c.phase("weights", l.number);
    }
    // model_runner.py load_model prints "elapsed=" first from v0.5.7; the newest releases
    // print the quantization instead of the dtype ("quant=fp8, fmt=e4m3").
    if (!contains(m, "elapsed=")) {
      c.clue("", "0.5.7", "'Load weight end' without 'elapsed='", l.number);
    } else {
      c.clue("0.5.7", "", "'Load weight end. elapsed='", l.number);
    }
    if (contains(m, "quant=")) c.clue("0.5.19", "", "'Load weight end' with 'quant='", l.number);
  } else if (contains(m, "liding window memory pool")) {
    // model_runner.py (set_num_token_hybrid; memory_pool_config.py in the newest): "Use
    // Sliding window memory pool. full_layer_tokens=F, swa_layer_tokens=S" ("sliding" in
    // later releases; "(all SWA). swa_layer_tokens=S" with no full layers). F is
    // max_total_num_tokens.
    figure(c, l, "full_layer_tokens=", Quantity::kKvTokens);
    figure(c, l, "swa_layer_tokens=", Quantity::kSwaKvTokens);
  } else if (starts_with(m, "SWAKVPool mem usage")) {
    // memory_pool.py SWAKVPool.__init__: the two pools' K and V sizes added up, restated,
    // with each pool's tokens: "full size" is max_total_num_tokens.
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": the sliding-window pool's total restates its pools' K and V "
                            "sizes: " +
                            std::string(m));
    if (!c.printed(Quantity::kKvTokens, l.process)) figure(c, l, "full size:", Quantity::kKvTokens);
    if (!c.printed(Quantity::kSwaKvTokens, l.process)) {
      figure(c, l, "swa size:", Quantity::kSwaKvTokens);
    }
  } else if (starts_with(m, "KV Cache is allocated") &&
             (c.printed(Quantity::kSwaKvTokens, l.process) ||
              c.prints_before(l, "SWAKVPool mem usage", "Memory pool end")) &&
             !ready(c, l)) {
    // memory_pool.py SWAKVPool: its full and sliding-window pools print one line each.
    c.run().notes.push_back("line " + std::to_string(l.number) +
                            ": one pool of the sliding-window KV cache, not compared on its "
                            "own (the pool sizes are): " +
                            std::string(m));
    c.phase("kv cache", l.number);
  } else if (starts_with(m, "KV Cache is allocated")) {
    // memory_pool.py: "dtype: ..." first from a release after v0.5.9 (sglang.md §9).
    if (contains(m, "dtype:")) c.clue("0.5.10", "", "'KV Cache is allocated. dtype:'", l.number);
    if (!draft_pool_line(c, l, Quantity::kKvTokens)) {
      figure(c, l, "#tokens:", Quantity::kKvTokens);
      // MHA pools print K and V; MLA pools one "KV size" (which holds "V size:" too).
      if (contains(m, " K size:")) {
        figure(c, l, " K size:", Quantity::kKSize);
        figure(c, l, " V size:", Quantity::kVSize);
      } else {
        figure(c, l, "KV size:", Quantity::kKvSize);
      }
      c.phase("kv cache", l.number);
    } else {
      c.run().notes.push_back(
          "line " + std::to_string(l.number) +
          ": the speculative draft's KV pool is not compared: " + std::string(m));
    }
  } else if (starts_with(m, "Memory pool end")) {
    if (!draft_pool_line(c, l, Quantity::kFreeAfterPool)) {
      figure(c, l, "avail mem=", Quantity::kFreeAfterPool);
    } else {
      c.run().notes.push_back("line " + std::to_string(l.number) +
                              ": free memory after the speculative draft's KV pool is not "
                              "compared: " +
                              std::string(m));
    }
  } else if (starts_with(m, "Capture cuda graph begin")) {
    figure(c, l, "avail mem=", Quantity::kFreeBeforeGraphs);
    c.phase("cuda graphs", l.number);
  } else if (starts_with(m, "Capture cuda graph bs")) {
    read_batch_sizes(l, c);
  } else if (starts_with(m, "Capture cuda graph end")) {
    figure(c, l, "mem usage=", Quantity::kGraphUsage);
    figure(c, l, "avail mem=", Quantity::kFreeAfterGraphs);
    c.phase("cuda graphs done", l.number);
    // cuda_graph_runner.py: "Time elapsed: T s. avail mem=A GB. mem usage=U GB." up to
    // v0.4.6.x; "mem usage" first from v0.4.7; from v0.5.12 "Capture target decode CUDA
    // graph end" (sglang.md §9).
    c.clue("", "0.5.12", "'Capture cuda graph end' (before the per-kind graph lines)", l.number);
    if (contains(m, "Time elapsed:") && m.find("avail mem=") < m.find("mem usage=")) {
      c.clue("", "0.4.7", "'Capture cuda graph end' with 'avail mem' before 'mem usage'", l.number);
    }
  } else if (starts_with(m, "Capture target decode CUDA graph begin")) {
    // v0.5.12 on (PR #23906): one begin and end line per graph kind.
    figure(c, l, "avail mem=", Quantity::kFreeBeforeGraphs);
    c.phase("cuda graphs", l.number);
    c.clue("0.5.12", "", "'Capture target decode CUDA graph'", l.number);
  } else if (starts_with(m, "Capture target decode CUDA graph end")) {
    figure(c, l, "mem usage=", Quantity::kGraphUsage);
    figure(c, l, "avail mem=", Quantity::kFreeAfterGraphs);
    c.phase("cuda graphs done", l.number);
  } else if ((contains(m, "CUDA graph end.") || contains(m, "CUDA graph begin.")) &&
             starts_with(m, "Capture ")) {
    // The other kinds (target verify, draft decode, prefill): not compared one by one.
    const bool begin = contains(m, "CUDA graph begin.");
    c.run().notes.push_back("line " + std::to_string(l.number) + ": '" +
                            std::string(m.substr(0, m.find(begin ? " begin." : " end."))) +
                            (begin ? " begin'" : "'") +
                            " is not compared (gpumem prints the decode graphs' lines)");
    c.phase("cuda graphs", l.number);
  } else if (starts_with(m, "Capture draft")) {
    c.phase("draft cuda graphs", l.number);
  } else if (starts_with(m, "max_total_num_tokens=")) {
    read_summary(l, c);
  } else if (contains(m, "Custom allreduce is disabled")) {
    c.run().notes.push_back("line " + std::to_string(l.number) + ": " + std::string(m));
  } else if (contains(m, "is larger than the profiled value")) {
    // model_runner.py init_memory_pool with --max-total-tokens: "max_total_tokens=131072 is
    // larger than the profiled value -561981. Use the profiled value instead." A profiled
    // value of 0 or less is an empty pool: "Not enough memory" follows.
    if (const std::optional<PrintedNumber> n = number_after(m, "max_total_tokens=")) {
      c.printed_count_flag(l, *n, "--max-total-tokens");
    }
    const size_t at = m.find("profiled value ");
    const std::string_view value = m.substr(at + 15);
    if (value.starts_with('-') || value.starts_with("0.") || value.starts_with("0 ")) {
      c.problem(ProblemKind::kNotEnoughMemory, l);
    }
  } else if (contains(m, "Not enough memory. Please try to increase --mem-fraction-static")) {
    c.problem(ProblemKind::kNotEnoughMemory, l);
  } else if (contains(m, "Loaded weights leave no GPU memory for the KV cache")) {
    // v0.5.14 on: "ValueError: Loaded weights leave no GPU memory for the KV cache under
    // --mem-fraction-static=0.88."
    if (const size_t at = m.find("--mem-fraction-static="); at != std::string_view::npos) {
      std::string value(m.substr(at + 22));
      while (!value.empty() && (value.back() == '.' || value.back() == ' ')) value.pop_back();
      c.printed_flag(l, "--mem-fraction-static", value.substr(0, value.find(' ')), at + 22);
    }
    c.problem(ProblemKind::kNotEnoughMemory, l);
    c.clue("0.5.14", "", "'Loaded weights leave no GPU memory for the KV cache'", l.number);
  } else if (contains(m, "Automatically reduce --mem-fraction-static to ")) {
    // server_args.py adjust_mem_fraction_for_vlm: the fraction the start-up uses.
    if (const std::optional<PrintedNumber> n = number_after(m, "static to ")) {
      c.printed_flag(l, "--mem-fraction-static", std::string(m.substr(n->begin, n->length)),
                     n->begin);
    }
  } else if (starts_with(m, "Mamba Cache is allocated")) {
    // memory_pool.py MambaPool.__init__: the state slots of a hybrid linear-attention model.
    if (contains(m, "intermediate_ssm_state_cache")) {
      c.run().notes.push_back(
          "line " + std::to_string(l.number) +
          ": the speculative intermediate state buffers are not modelled: " + std::string(m));
    } else {
      figure(c, l, "max_mamba_cache_size:", Quantity::kMambaSlots);
      figure(c, l, "conv_state size:", Quantity::kConvStateSize);
      figure(c, l, "ssm_state size:", Quantity::kSsmStateSize);
    }
  } else if (contains(m, "memory capacity is unbalanced")) {
    c.problem(ProblemKind::kImbalance, l);
  } else if (is_out_of_memory(m)) {
    c.problem(ProblemKind::kOutOfMemory, l);
  } else if (contains(m, "Capture cuda graph failed") ||
             starts_with(m, "Scheduler hit an exception") || starts_with(m, "CUDA error (")) {
    // scheduler.py run_scheduler_process; a kernel's "CUDA error (file:line): ..." (not out
    // of memory, which is read above).
    c.problem(ProblemKind::kOtherError, l);
  } else {
    return false;
  }
  return true;
}

}  // namespace gpumem
