#include "explain/startup_log.h"

namespace gpumem {

std::string_view log_engine_name(LogEngine e) {
  return e == LogEngine::kSglang ? "sglang" : "vllm";
}

std::string_view log_engine_title(LogEngine e) {
  return e == LogEngine::kSglang ? "SGLang" : "vLLM";
}

std::optional<LogEngine> log_engine_named(std::string_view name) {
  for (LogEngine e : {LogEngine::kSglang, LogEngine::kVllm}) {
    if (log_engine_name(e) == name) return e;
  }
  return std::nullopt;
}

std::string_view quantity_name(Quantity q) {
  switch (q) {
    case Quantity::kInitDistributedUsage:
      return "distributed init took";
    case Quantity::kFreeBeforeWeights:
      return "free before weights (F)";
    case Quantity::kWeightUsage:
      return "weights took";
    case Quantity::kFreeAfterWeights:
      return "free after weights (A)";
    case Quantity::kDraftWeightUsage:
      return "draft weights took";
    case Quantity::kKSize:
      return "K cache";
    case Quantity::kVSize:
      return "V cache";
    case Quantity::kKvSize:
      return "KV cache (MLA)";
    case Quantity::kMambaSlots:
      return "state cache slots";
    case Quantity::kConvStateSize:
      return "conv state";
    case Quantity::kSsmStateSize:
      return "SSM state";
    case Quantity::kFreeAfterPool:
      return "free after KV pool";
    case Quantity::kFreeBeforeGraphs:
      return "free before CUDA graphs";
    case Quantity::kFreeAfterGraphs:
      return "free after CUDA graphs";
    case Quantity::kMaxRunningRequests:
      return "max_running_requests";
    case Quantity::kFreeAtReady:
      return "free when ready";
    case Quantity::kKvTokens:
      return "KV cache tokens";
    case Quantity::kSwaKvTokens:
      return "sliding-window KV tokens";
    case Quantity::kGraphUsage:
      return "CUDA graphs took";
    case Quantity::kTotalMemory:
      return "total GPU memory";
    case Quantity::kFreeAtStartup:
      return "free at start-up";
    case Quantity::kRequestedMemory:
      return "budget (total x utilization)";
    case Quantity::kModelLoading:
      return "model weights";
    case Quantity::kPeakTorchMemory:
      return "torch peak (weights + activations)";
    case Quantity::kNonTorchMemory:
      return "non-torch memory";
    case Quantity::kConsumedMemory:
      return "consumed memory (weights + non-torch)";
    case Quantity::kActivationPeak:
      return "activation peak";
    case Quantity::kCudaGraphEstimate:
      return "CUDA graph estimate";
    case Quantity::kEquivalentUtilization:
      return "utilization less the graph estimate";
    case Quantity::kAvailableKvMemory:
      return "available KV cache memory";
    case Quantity::kGpuBlocks:
      return "GPU blocks";
    case Quantity::kMaxConcurrency:
      return "maximum concurrency";
    case Quantity::kKvTokensStorable:
      return "KV tokens storable";
    case Quantity::kKvCacheNeeded:
      return "KV cache one request needs";
    case Quantity::kAttentionBlockSize:
      return "attention block size (tokens)";
    case Quantity::kEncoderBudget:
      return "encoder budget (tokens)";
    case Quantity::kEncoderItems:
      return "encoder profile items";
  }
  return "";
}

FigureUnit quantity_unit(Quantity q) {
  switch (q) {
    case Quantity::kMaxRunningRequests:
    case Quantity::kMambaSlots:
    case Quantity::kAttentionBlockSize:
    case Quantity::kEncoderBudget:
    case Quantity::kEncoderItems:
    case Quantity::kKvTokens:
    case Quantity::kSwaKvTokens:
    case Quantity::kGpuBlocks:
    case Quantity::kKvTokensStorable:
      return FigureUnit::kCount;
    case Quantity::kMaxConcurrency:
    case Quantity::kEquivalentUtilization:
      return FigureUnit::kRatio;
    default:
      return FigureUnit::kGiB;
  }
}

const LoggedFlag* LogRun::flag(std::string_view name) const {
  for (const LoggedFlag& f : flags) {
    if (f.flag == name) return &f;
  }
  return nullptr;
}

std::vector<const Observation*> LogRun::all(Quantity q) const {
  std::vector<const Observation*> out;
  for (const Observation& o : observations) {
    if (o.quantity == q) out.push_back(&o);
  }
  return out;
}

const Observation* LogRun::first(Quantity q) const {
  for (const Observation& o : observations) {
    if (o.quantity == q) return &o;
  }
  return nullptr;
}

bool LogRun::empty() const {
  return observations.empty() && flags.empty() && problems.empty() && !model;
}

}  // namespace gpumem
