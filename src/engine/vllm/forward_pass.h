// One vLLM rank's forward pass over its pipeline stage, replayed through the allocator, as
// the memory profile, the CUDA-graph estimate, the capture and the sampler warm-up run it
// (vllm v1/worker/gpu_model_runner.py _dummy_run, _dummy_sampler_run, _warmup_and_capture):
// the residual stream's two buffers, each layer kind's transient activations, every layer's
// kernels and two all-reduces (custom kernel, symmetric memory or PyNccl, routed as
// cuda_communicator.py does), the final norm, the logits and the sampler. Captured
// all-reduces note the base allocations custom all-reduce must register afterwards.
#ifndef GPUMEM_ENGINE_VLLM_FORWARD_PASS_H_
#define GPUMEM_ENGINE_VLLM_FORWARD_PASS_H_

#include <cstdint>
#include <set>
#include <vector>

#include "engine/vllm/activation_model.h"
#include "engine/vllm/encoder_profile.h"
#include "engine/vllm/plan.h"
#include "runtime/rank_env.h"

namespace gpumem::vllm {

// What one graph capture records for custom all-reduce registration.
struct Capture {
  std::set<std::uint64_t> bases;  // distinct base allocations of captured inputs
  std::int64_t custom_calls = 0;  // captured custom all-reduce calls (their addresses)
};

class ForwardPass {
 public:
  // Everything must outlive the pass; `tp_comm` is the rank's TP communicator (unused at
  // TP 1).
  ForwardPass(const Plan& plan, const ActivationConstants& constants, RankEnv& env,
              CommunicatorId tp_comm);

  // gpu_model_runner.py _dummy_run over `tokens` tokens, then the dummy sampler (last stage
  // only); everything it allocates is freed again.
  Status dummy_run_with_sampler(std::int64_t tokens);

  // profile_run's encoder step (encoder_profile.h): the dummy images' pixel values and the
  // ViT's forward over them, eager; leaves the pixel values and the encoder's outputs in
  // `held` (the encoder cache), everything else freed.
  Status encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);

  // _warmup_and_capture: cudagraph_num_of_warmups (1) eager forward, then the forward
  // captured into `pool`; `full` graphs include the attention kernels.
  Status capture_size(std::int64_t tokens, bool full, PoolId pool, Capture& capture);

 private:
  // The towers' own forwards after the pixel values (encoder_forward.cc).
  Status qwen2_encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);
  Status qwen25_encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);
  Status gemma3_encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);
  Status llava_encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);
  Status gemma4_encoder_forward(const EncoderProfile& profile, std::vector<BlockHandle>& held);
  Status replay(const std::vector<Activation>& list, std::vector<BlockHandle>* survivors);
  // Replays a ViT step whose one survivor replaces `stream` (freed once the survivor exists).
  Status vit_step(const std::vector<Activation>& list, BlockHandle& stream);
  Status all_reduce(BlockHandle input, Bytes size, Capture* capture);
  Status forward(std::int64_t tokens, bool attention_kernels, Capture* capture, BlockHandle& out);
  Status logits_and_sampler(std::int64_t requests);

  const Plan& p_;
  const ActivationConstants& k_;
  RankEnv& env_;
  const StagePlan& stage_;
  const bool last_stage_;
  const std::int64_t element_bytes_;
  const CommunicatorId tp_comm_;
};

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_FORWARD_PASS_H_
