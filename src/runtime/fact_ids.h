// The ids of the facts that code other than the engine writing them reads — key figures,
// check, explain, sweep, fit advice — and that files store (ledgers, probe traces). Ids are
// stable snake_case, never display text: an engine may word a fact as it likes (its label),
// and a report may change its wording, without breaking a reader or a committed file.
//
// Files written before ids existed (gpumem.ledger.v1 ledgers and every gpumem.trace.v1 probe
// trace) stored the label alone; fact_id_of_v1_label maps those labels to ids, so old files
// are read as they are (the probe traces are measurements and are not rewritten).
#ifndef GPUMEM_RUNTIME_FACT_IDS_H_
#define GPUMEM_RUNTIME_FACT_IDS_H_

#include <string>
#include <string_view>

namespace gpumem::fact_id {

// Per GPU.
inline constexpr std::string_view kFreeBeforeWeights = "free_before_weights";  // SGLang F
inline constexpr std::string_view kFreeAfterWeights = "free_after_weights";    // SGLang A
// vLLM's free memory at its init snapshot (after the context and the communicators).
inline constexpr std::string_view kInitSnapshotFree = "init_snapshot_free";
// The weights' memory as the engine measures it (vLLM's model_memory_usage); the logical
// sum of the tensors' sizes is weights_logical_bytes (key figures take it where the engine
// measures nothing, as SGLang).
inline constexpr std::string_view kWeightsBytes = "weights_bytes";
inline constexpr std::string_view kWeightsLogicalBytes = "weights_logical_bytes";
inline constexpr std::string_view kKvTokens = "kv_tokens";
inline constexpr std::string_view kSwaKvTokens = "swa_kv_tokens";  // SGLang's SWA pool
inline constexpr std::string_view kKvBytes = "kv_bytes";
inline constexpr std::string_view kKvCellBytes = "kv_cell_bytes";  // bytes per token
inline constexpr std::string_view kKvBlocks = "kv_blocks";
inline constexpr std::string_view kMaxRunningRequests = "max_running_requests";
inline constexpr std::string_view kMaxConcurrency = "max_concurrency";
// vLLM --max-model-len auto: the length fitted to the KV cache (the scenario's max_model_len is
// the model's own).
inline constexpr std::string_view kMaxModelLenFitted = "max_model_len_fitted";
inline constexpr std::string_view kCudaGraphBytes = "cuda_graph_bytes";
inline constexpr std::string_view kRequestedMemory = "requested_memory";  // vLLM total x util
inline constexpr std::string_view kActivationPeakBytes = "activation_peak_bytes";
inline constexpr std::string_view kFreeAtReady = "free_at_ready";
// The KV cache's budget as the engine computes it (negative when the engine keeps back more
// than there is), the free memory after the weights it is cut from, and in words what the
// engine keeps back in between; `gpumem plot` draws them on each GPU's bar.
inline constexpr std::string_view kKvBudgetBytes = "kv_budget_bytes";
inline constexpr std::string_view kKvBudgetFreeBytes = "kv_budget_free_bytes";
inline constexpr std::string_view kKvKeptBack = "kv_kept_back";
// Written by an engine that stops with its own memory error: how much more memory it would
// have needed to start (the allocation that fails out of memory says it itself).
inline constexpr std::string_view kShortfallBytes = "shortfall_bytes";
// Scenario-wide.
inline constexpr std::string_view kMemFractionStatic = "mem_fraction_static";
inline constexpr std::string_view kGpuMemoryUtilization = "gpu_memory_utilization";
inline constexpr std::string_view kCudaGraphMaxBs = "cuda_graph_max_bs";
inline constexpr std::string_view kMaxCudagraphCaptureSize = "max_cudagraph_capture_size";
inline constexpr std::string_view kMaxModelLen = "max_model_len";
inline constexpr std::string_view kContextLen = "context_len";
inline constexpr std::string_view kMaxNumSeqs = "max_num_seqs";
inline constexpr std::string_view kMaxNumBatchedTokens = "max_num_batched_tokens";
// Engines that serve requests independently, each with its own KV cache and request pool
// (SGLang's --dp-size schedulers, with or without DP attention); 1 when there is one.
inline constexpr std::string_view kDataParallelReplicas = "data_parallel_replicas";
// Set when the model reference did not name the model outright (a path not on this machine,
// read by its folder name): what was assumed. The summary shows it.
inline constexpr std::string_view kModelAssumed = "model_assumed";

// A GPU fact with this prefix and a step's name holds how far that step's memory may honestly
// stray from the prediction (an engine rule that magnifies a driver rounding); `gpumem check`
// adds it to the step's tolerance.
inline constexpr std::string_view kStepUncertaintyPrefix = "step_uncertainty_";
std::string step_uncertainty(std::string_view step);

// The id of a fact that a v1 file stored under `label` alone; "" when the label is unknown.
std::string fact_id_of_v1_label(std::string_view label);

}  // namespace gpumem::fact_id

#endif  // GPUMEM_RUNTIME_FACT_IDS_H_
