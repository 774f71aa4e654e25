// A partial replay: what a start-up's own logged figures determine of the engine's memory
// arithmetic, for a start-up the full replay cannot take (the model or the GPU is unknown, or
// the replay is refused).
//
// vLLM: the budget is total x --gpu-memory-utilization, and the KV cache memory is the budget
// less the weights, the activation peak, the non-torch memory and the CUDA-graph estimate
// (gpu_worker.py determine_available_memory); SGLang: the KV pool takes rest = A - F x (1 -
// --mem-fraction-static) (profile_max_num_token), the fraction being SGLang's default for the
// named GPU and the logged flags where the log states none. Besides: vLLM's maximum
// concurrency from the KV tokens or blocks it logs beside it (the release's rule), the
// utilization the CUDA-graph estimate is worth (U - estimate / total; without the GPU, the
// total it implies), and a logged CUDA total against the catalog's for a GPU named elsewhere.
// Where the figures decide nothing about the fit, the log's own memory failure does (and no
// flag change is proposed). A start-up whose figures check nothing keeps the arithmetic's
// lines: what it leaves open, and why a figure is not predicted. The arithmetic is the
// engine model's own (engine/vllm/kv_sizing.h, engine/sglang/kv_sizing.h), with the release's
// rules. Each logged figure it reads is marked pinned, each it determines gets its
// prediction, error and tolerance (print rounding of every input, plus the memory tolerance
// where the total is the catalog GPU's rather than the log's). When the log's own numbers leave the
// KV cache too little, the diagnosis says by how much and the advice names the smallest
// --gpu-memory-utilization (and --max-model-len, where the log states what one request of
// the maximum length needs) or --mem-fraction-static they say would start. KV tokens, weights
// and CUDA graphs follow from the model and are not predicted.
#ifndef GPUMEM_EXPLAIN_PARTIAL_REPLAY_H_
#define GPUMEM_EXPLAIN_PARTIAL_REPLAY_H_

#include "explain/explanation.h"

namespace gpumem {

// Sets r.partial, the predictions and verdicts of r.figures (made by logged_only), the
// diagnosis lines and the advice of a start-up that is not replayed. Leaves r.partial unset
// when the log's figures determine nothing.
void partial_replay(RunExplanation& r, LogEngine engine, const ExplainContext& ctx);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_PARTIAL_REPLAY_H_
