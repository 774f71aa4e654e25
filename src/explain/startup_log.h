// What an engine's start-up log says, read into numbers: the figures its memory lines print
// (each with its line, the rank that printed it and the precision it was printed with), the
// flags it states (argument dumps, launch commands, values its memory lines name), the model,
// version and GPU where printed, and the errors that ended the start-up.
//
// One log may hold several start-ups (a user re-ran the server and pasted every attempt);
// each is a `LogRun`. Units: SGLang's "GB" and vLLM's "GB"/"GiB" are all GiB (bytes / 2^30),
// kept as printed in `value`; counts are exact; `decimals` says how a figure was rounded
// (kExact for whole counts and byte counts).
#ifndef GPUMEM_EXPLAIN_STARTUP_LOG_H_
#define GPUMEM_EXPLAIN_STARTUP_LOG_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpumem {

enum class LogEngine { kSglang, kVllm };

// The engine model's name (engine/engine_model.h) for a log's engine: "sglang", "vllm".
std::string_view log_engine_name(LogEngine e);
// The engine as its project writes its name in prose: "SGLang", "vLLM".
std::string_view log_engine_title(LogEngine e);
// The log engine whose model is called `name`; nullopt for another name.
std::optional<LogEngine> log_engine_named(std::string_view name);

// Each figure an engine prints about start-up memory. The comment names the line it is read
// from; several wordings (releases) may feed one quantity.
enum class Quantity {
  // SGLang (model_runner.py, memory_pool.py, scheduler.py)
  kInitDistributedUsage,  // "Init torch distributed ends. mem usage=X GB"
  kFreeBeforeWeights,     // "Load weight begin. avail mem=X GB"
  kWeightUsage,           // "Load weight end. ... mem usage=X GB"
  kFreeAfterWeights,      // "Load weight end. ... avail mem=X GB"
  kDraftWeightUsage,      // the speculative draft's own "Load weight end ... mem usage"
  kKSize,                 // "KV Cache is allocated. #tokens: N, K size: X GB"
  kVSize,                 // "... V size: X GB"
  kKvSize,                // MLA: "... KV size: X GB"
  kMambaSlots,            // "Mamba Cache is allocated. max_mamba_cache_size: N"
  kConvStateSize,         // "... conv_state size: X GB"
  kSsmStateSize,          // "... ssm_state size: X GB"
  kFreeAfterPool,         // "Memory pool end. avail mem=X GB"
  kFreeBeforeGraphs,      // "Capture cuda graph begin. ... avail mem=X GB"
  kFreeAfterGraphs,       // "Capture cuda graph end. ... avail mem=X GB"
  kMaxRunningRequests,    // "max_running_requests=N"
  kFreeAtReady,           // "available_gpu_mem=X GB"
  // Both engines
  kKvTokens,  // SGLang "#tokens: N" / "max_total_num_tokens=N"; vLLM "GPU KV cache size: N tokens"
  kSwaKvTokens,  // SGLang "Use sliding window memory pool. ..., swa_layer_tokens=N"
  kGraphUsage,   // SGLang "Capture cuda graph end. ... mem usage=X GB"; vLLM "Graph capturing
                 // finished ..., took X GiB"
  // vLLM (worker.py / gpu_worker.py, gpu_model_runner.py, kv_cache_utils.py)
  kTotalMemory,            // "total_gpu_memory X GiB"; "Free memory on device (F/T GiB)"
  kFreeAtStartup,          // "Free memory on device (F/T GiB) on startup"
  kRequestedMemory,        // "the current vLLM instance can use X GiB"; "Desired ... (u, X GiB)"
  kModelLoading,           // "Model loading took X GiB"; V0 "Loading model weights took X GB"
  kPeakTorchMemory,        // V0 "peak_torch_memory=X GiB" (weights included)
  kNonTorchMemory,         // "non_torch_memory X GiB"; "X GiB for non-torch memory"
  kConsumedMemory,         // "X GiB for consumed memory (weights + non-torch)" (newest summary)
  kActivationPeak,         // "PyTorch activation peak memory X GiB"; "X GiB for peak activation"
  kCudaGraphEstimate,      // "Estimated CUDA graph memory: X GiB total"
  kEquivalentUtilization,  // "The current --gpu-memory-utilization=U is equivalent to
                           // --gpu-memory-utilization=E without CUDA graph memory profiling"
  kAvailableKvMemory,      // "Available KV cache memory: X GiB"; V0 "available_kv_cache_memory";
                           // "Current kv cache memory in use is N bytes" (exact)
  kGpuBlocks,              // V0 "# GPU blocks: N"
  kMaxConcurrency,         // "Maximum concurrency for L tokens per request: Cx"
  kKvTokensStorable,       // V0 "... tokens that can be stored in KV cache (N)"; V1 "... the
                           // estimated maximum model length is N"
  kKvCacheNeeded,          // "To serve at least one request ..., (X GiB KV cache is needed"
  kAttentionBlockSize,     // hybrid models: "Setting attention block size to N tokens"
  kEncoderBudget,          // multimodal models: "Encoder cache will be initialized with a
                           // budget of N tokens, and profiled with K image items ..."
  kEncoderItems,           // "... profiled with K image items of the maximum feature size"
};

enum class FigureUnit { kGiB, kCount, kRatio };

std::string_view quantity_name(Quantity q);  // "free after weights (A)"
FigureUnit quantity_unit(Quantity q);

inline constexpr int kExact = -1;

struct Observation {
  Quantity quantity;
  double value = 0;       // GiB, a count or a ratio, as printed
  int decimals = kExact;  // digits after the point as printed; kExact for exact values
  int line = 0;
  std::string process;      // the prefix that printed it ("TP3"); "" for the main process
  std::optional<int> rank;  // the rank the prefix names, if it names one
  std::optional<int> pp;    // the pipeline stage the prefix names ("Worker_PP1_TP0", "PP1")
  std::optional<int> dp;    // the data-parallel rank it names ("DP3 TP3", "EngineCore_DP0")
};

// A flag the log states, spelled as on the engine's command line ("--tp-size").
struct LoggedFlag {
  std::string flag;
  std::vector<std::string> values;
  bool is_list = false;
  int line = 0;
  int column = 0;      // of the value in the file's line (1-based); 0 when not known
  std::string source;  // "server_args", "launch command", "non-default args", "printed", ...
  // Stated by a line of the KV cache's own figures (vLLM's "Maximum concurrency for N tokens
  // per request"): the value the figures were computed with.
  bool with_figures = false;
};

enum class ProblemKind {
  kOutOfMemory,      // CUDA out of memory
  kKvCacheTooSmall,  // vLLM: one request of max_model_len does not fit the KV cache
  kNoKvMemory,       // vLLM: "No available memory for the cache blocks"
  kBudget,           // vLLM: free memory below gpu_memory_utilization's budget
  kNotEnoughMemory,  // SGLang: the profiled KV pool is empty ("Not enough memory")
  kImbalance,        // SGLang: "The memory capacity is unbalanced"
  kOtherError,
};

struct LoggedProblem {
  ProblemKind kind;
  std::string message;  // the line's text
  int line = 0;
  std::string process;
  std::optional<int> rank;  // as Observation's: the ranks its prefix names
  std::optional<int> pp;
  std::optional<int> dp;
  bool exception = false;  // the exception a traceback ends with: the cause of the lines before
  std::optional<double> requested_gib;  // OOM "Tried to allocate X"
  std::optional<double> free_gib;       // OOM "of which X is free"
};

// Evidence about the engine's release from what a line looks like: the release is at least
// `from` and below `before` (either may be empty).
struct VersionClue {
  std::string from;
  std::string before;
  std::string why;
  int line = 0;
  bool from_date = false;  // the bound is the log's date, not the wording of a line
  // A vLLM source line's clue (explain/vllm_source_lines.h): the newest release whose public
  // logs print it there; "" for every other clue.
  std::string seen;
};

// A start-up phase the log reached, to say where a truncated or failed log stops.
struct PhaseMark {
  std::string phase;  // "weights", "kv cache", "cuda graphs", "ready", ...
  int line = 0;
};

// The ranks one line's prefix names ("Worker_DP1_TP1_EP3": DP rank 1, TP rank 1, EP rank 3),
// and whether the process is a vLLM worker (named by its TP rank only when TP > 1).
struct RankPrefix {
  std::optional<int> tp, pp, dp, ep;
  bool worker = false;
  auto operator<=>(const RankPrefix&) const = default;
};

struct LogRun {
  int first_line = 0;
  int last_line = 0;
  std::vector<Observation> observations;
  std::vector<LoggedFlag> flags;
  std::optional<std::string> model;  // Hugging Face name or path as logged
  int model_line = 0;
  // The line of the Python LLM( call that started the engine offline (vLLM's LLM class); 0
  // for a server.
  int offline_call_line = 0;
  // The repository a Hugging Face cache path in any line names ("models--zai-org--GLM-5.1-FP8"):
  // the model when no line names one.
  std::optional<std::string> model_in_cache_path;
  int model_in_cache_path_line = 0;
  std::optional<std::string> version;  // printed release
  int version_line = 0;
  // The version is the release the launch command's image tag names, not a printed one.
  bool version_from_image_tag = false;
  std::vector<VersionClue> version_clues;
  std::string date;  // the first full date a recognised line carries ("2025-10-16"); "" if none
  int date_line = 0;
  // The first "MM-DD" a vLLM frame carries ("INFO 08-20 18:04:10"), when no line has a full
  // date: the month and day, no year.
  std::string month_day;
  int month_day_line = 0;
  // An accelerator other than an NVIDIA GPU that a line names (explain/platform_clue.h).
  std::optional<std::string> platform;
  int platform_line = 0;
  std::optional<std::string> gpu_name;  // as nvidia-smi / torch prints it
  int gpu_name_line = 0;
  bool gpu_name_partial = false;               // only the end of the name (a line cut at its start)
  std::optional<double> gpu_memory_total_mib;  // nvidia-smi memory.total
  // vLLM's model runner as a line shows it: V2 from "Using V2 Model Runner", V1 from a fallback
  // warning or a line of v1/worker/gpu_model_runner.py (the first such line decides); unset
  // when none shows it.
  std::optional<bool> v2_model_runner;
  int model_runner_line = 0;
  std::string model_runner_evidence;
  std::string architecture;  // SGLang "type=Qwen2ForCausalLM"; vLLM "Resolved architecture: "
  std::string dtype;         // "torch.bfloat16"
  std::vector<LoggedProblem> problems;
  // The rank prefixes of every line of this start-up, figures or not: a log whose memory
  // lines are all TP0's names TP7 in its other lines.
  std::set<RankPrefix> rank_prefixes;
  // vLLM's worker processes that name no rank, in the order their first line came: V0's
  // multiprocessing workers ("VllmWorkerProcess pid=90") and Ray's ("RayWorkerWrapper
  // pid=5, ip=10.0.0.2"). V0's driver, whose lines carry no prefix, is rank 0 and each of
  // these one rank more; under V1 (a Ray worker inside "EngineCore pid=8") every rank is a
  // worker.
  std::vector<std::string> unranked_workers;
  bool workers_hold_every_rank = false;
  // The most other Ray workers one worker's line was repeated by ("[repeated 30x across
  // cluster]"): that many workers beside it printed the line.
  int cluster_repeats = 0;
  std::vector<PhaseMark> phases;
  std::vector<std::string> notes;  // other facts a line states (custom all-reduce disabled, ...)
  int recognised_lines = 0;

  const LoggedFlag* flag(std::string_view name) const;
  // Observations of `q`, in log order.
  std::vector<const Observation*> all(Quantity q) const;
  const Observation* first(Quantity q) const;
  bool empty() const;  // nothing usable
};

struct StartupLog {
  LogEngine engine = LogEngine::kSglang;
  std::vector<LogRun> runs;
  int lines = 0;
};

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_STARTUP_LOG_H_
