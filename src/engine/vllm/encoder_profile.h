// vLLM's multimodal encoder profile. Before the language model's dummy forward, profile_run
// (v1/worker/gpu_model_runner.py) runs a multimodal model's encoder once, eagerly, on as many
// maximum-size dummy items as the encoder budget admits; the dummy inputs and the encoder's
// outputs stay allocated through the dummy forward and the sampler. torch's activation peak is
// therefore the larger of the encoder's own peak and the language model's with those held.
// This file decides what the profile runs (gpu_model_runner.py profile_run and
// _get_mm_dummy_batch, multimodal/encoder_budget.py MultiModalBudget, qwen3_vl.py
// Qwen3VLDummyInputsBuilder, gemma3_mm.py Gemma3ProcessingInfo, read in their 2026 copies) and
// lists the tensors the vision towers allocate: Qwen3-VL's (qwen3_vl.py
// Qwen3_VisionTransformer.forward), the ViT of Qwen3-VL, Qwen3.5 and Qwen3.6; Qwen2.5-VL's
// (qwen2_5_vl.py Qwen2_5_VisionTransformer.forward, read at fb33ec8, with the cos/sin tables of
// the 2026 rotary refactor that Qwen3-VL's attention, the same Qwen2_5_VisionAttention class,
// reads); Gemma 3's SigLIP and projector (siglip.py at 0c028ba, gemma3_mm.py
// Gemma3MultiModalProjector); Gemma 4's (gemma4_mm.py _process_video_input at 49e6e47, one
// frame at a time through HF's Gemma4VisionModel). Other towers are refused by the plan.
#ifndef GPUMEM_ENGINE_VLLM_ENCODER_PROFILE_H_
#define GPUMEM_ENGINE_VLLM_ENCODER_PROFILE_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/architecture.h"
#include "core/units.h"
#include "engine/vllm/activation_model.h"

namespace gpumem::vllm {

// Qwen3-VL's image processor (Qwen2VLImageProcessorFast, the preprocessor_config.json that
// Qwen3-VL, Qwen3.5 and Qwen3.6 checkpoints ship): size.longest_edge, in pixels.
inline constexpr std::int64_t kQwen3VlMaxImagePixels = 16777216;
// Qwen2.5-VL's (Qwen2VLImageProcessor, the preprocessor_config.json Qwen2.5-VL checkpoints
// ship): max_pixels.
inline constexpr std::int64_t kQwen25VlMaxImagePixels = 12845056;
// ... and Qwen3-VL's video processor's longest_edge over t x h x w pixels.
inline constexpr std::int64_t kQwen3VlMaxVideoPixels = 25165824;
// vllm multimodal/encoder_budget.py: a modality without --limit-mm-per-prompt allows 999
// items per prompt.
inline constexpr std::int64_t kDefaultItemsPerPrompt = 999;

// Qwen2-VL's processing info (qwen2_vl.py _MAX_FRAMES_PER_VIDEO, read at 7b4dd80): the most
// frames a dummy video has.
inline constexpr std::int64_t kQwen2VlMaxFramesPerVideo = 14;

// What the profile runs, and the log line that says so.
struct EncoderProfile {
  std::string_view modality = "image";  // the modality profiled: "image" or "video"
  std::int64_t budget = 0;              // encoder budget, tokens
  std::int64_t items = 0;               // dummy items encoded as one batch
  std::int64_t tokens_per_item = 0;     // embeddings one maximum-size item makes
  std::int64_t temporal_groups = 1;     // a video's frames / temporal_patch_size; 1 for images
  std::int64_t patches() const;         // the ViT's sequence over all items
  std::int64_t merge = 1;  // patches a side per embedding: spatial_merge_size, Gemma 3's pooling
};

// The launch values the profile's size depends on.
struct EncoderLimits {
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
  std::int64_t max_model_len = 0;
  std::optional<std::int64_t> image_limit;  // --limit-mm-per-prompt image
  bool chunked_prefill = true;
  std::optional<std::int64_t> video_limit;  // --limit-mm-per-prompt video
};

// A Qwen ViT's largest image in tokens (qwen2_vl.py get_image_size_with_most_features, the
// factor-pair form of v0.16 on, which Qwen2.5-VL and Qwen3-VL inherit): the largest count of
// merged patches within the processor's max_pixels whose closest factor pair has an aspect
// ratio of at most 200.
std::int64_t qwen_vl_max_image_tokens(const VisionTower& v);
// That image's grid in merged patches, rows <= columns (its closest factor pair).
std::pair<std::int64_t, std::int64_t> qwen_vl_max_image_grid(const VisionTower& v);
// LLaVA-NeXT's largest dummy image (llava_next.py LlavaNextProcessingInfo, 2026 copy): the
// image_grid_pinpoints entry with the most features (the first on a tie), which the processor
// cuts into rows x columns crops of image_size plus the whole image resized: `tokens`
// embeddings, the base image's num_patches and the grid's (rows x side) x (columns x side)
// with one image_newline per feature row (an image of a pinpoint's own size needs no unpadding).
struct LlavaNextGrid {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::int64_t tokens = 0;
  std::int64_t crops() const { return rows * columns + 1; }
};
LlavaNextGrid llava_next_dummy_grid(const VisionTower& v);
// LLaVA's dummy image: the CLIP processor's image_size square (llava.py
// BaseLlavaProcessingInfo.get_image_size_with_most_features), num_patches embeddings, one
// more when vision_feature_select_strategy keeps the class token (get_num_image_tokens);
// LLaVA-NeXT's, the grid above.
EncoderProfile plan_llava_profile(const VisionTower& v, const EncoderLimits& limits);
// ... and the largest video, two frames (qwen3_vl.py get_max_video_tokens, DUMMY frames 2).
std::int64_t qwen3_vl_max_video_tokens(const VisionTower& v);
// Qwen2.5-VL's largest video within a context of `max_model_len` tokens, in frames
// (qwen2_vl.py get_num_frames_with_most_features for one video: the most frames, up to
// kQwen2VlMaxFramesPerVideo, whose tokens fit the context, each temporal_patch_size frames
// (padded up) one grid of the largest image; at least 1).
std::int64_t qwen25_vl_max_video_frames(const VisionTower& v, std::int64_t max_model_len);

// vllm multimodal/encoder_budget.py MultiModalBudget: budget = max(max_num_batched_tokens,
// T), items = max(1, min(budget // T, requests x per prompt)), requests max_num_seqs (or, with
// chunked prefill off, at most max_num_batched_tokens // T), per prompt
// max(1, min(limit, max_model_len // T)), for the modality whose item has the most tokens
// (max() over image, then video: a tie profiles the image). Qwen3-VL's largest image outweighs
// its largest video; Qwen2.5-VL's video grows with the context (a 128,000-token context holds
// 14 frames: 7 x 16,384 tokens, as a real vLLM 0.23 log profiles it) and outweighs the image
// from 32,768 tokens on. A modality limited to 0 is not a candidate.
EncoderProfile plan_qwen_vl_profile(const VisionTower& v, const EncoderLimits& limits);

// Gemma 3: one dummy image of the processor's size (pan-and-scan off, gemma3_mm.py
// get_num_crops) is mm_tokens_per_image embeddings, and the budget counts only those
// (PromptUpdateDetails.select_token_id), not the <start_of_image>/<end_of_image> around
// them; items as plan_qwen_vl_profile's.
EncoderProfile plan_gemma3_profile(const VisionTower& v, const EncoderLimits& limits);

// Gemma 4 (gemma4_mm.py Gemma4ProcessingInfo and Gemma4DummyInputsBuilder, read at 49e6e47, the
// v0.21 code): the budget counts a video as 32 frames of 70 soft tokens plus 8 markers each,
// an image as default_output_length; the larger (a video, unless videos are limited to 0) is
// profiled, items as plan_qwen_vl_profile's. temporal_groups holds the frames of a video.
inline constexpr std::int64_t kGemma4VideoFrames = 32;
inline constexpr std::int64_t kGemma4FrameSoftTokens = 70;
EncoderProfile plan_gemma4_profile(const VisionTower& v, const EncoderLimits& limits);
// One dummy image or video frame as the processor makes it (transformers
// image_processing_gemma4.py get_aspect_ratio_preserving_size): 224 x 224 pixels scaled to
// hold at most `max_soft_tokens` x k^2 patches of p pixels (k the pooling kernel; 70 soft
// tokens a frame, default_output_length an image), each side floored to a multiple of k x p;
// its patches padded to max_soft_tokens x k^2; one soft token per k x k patches.
struct Gemma4Item {
  std::int64_t padded_patches = 0;
  std::int64_t soft_tokens = 0;
};
Gemma4Item gemma4_dummy_item(const VisionTower& v, std::int64_t max_soft_tokens);

// Gemma 4's tower (transformers modeling_gemma4.py Gemma4VisionModel, before 5.10) over one
// image or frame of `patches` padded patches, in the model dtype, whole on every rank:
// - the patch embedder: 2 x (pixels - 0.5), input_proj, then the position embedding as a
//   one-hot int64 [patches, 2, position_embedding_size] cast to the model dtype (both alive),
//   multiplied by the table, summed over the two axes and masked; the sum with input_proj's
//   output is the stream;
std::vector<Activation> gemma4_patch_embedding_activations(const VisionTower& v,
                                                           std::int64_t patches,
                                                           std::int64_t element_bytes);
// - a layer's attention half: Gemma4RMSNorm (two float32 copies alive, then the cast back),
//   q/k/v projections, their per-head norms, the 2-D RoPE copies of q and k, SDPA's output
//   made contiguous, o_proj, the post-attention norm, the residual sum: the new stream;
std::vector<Activation> gemma4_attention_activations(const VisionTower& v, std::int64_t patches,
                                                     std::int64_t element_bytes);
// - its MLP half: the pre-feedforward norm, gate, gelu_pytorch_tanh, up, their product, down,
//   the post-feedforward norm, the residual sum: the new stream;
std::vector<Activation> gemma4_mlp_activations(const VisionTower& v, std::int64_t patches,
                                               std::int64_t element_bytes);
// - the pooler (padding zeroed, the kernel one-hot average in float32 over `outputs`, cast
//   back, the padding dropped) and standardize: the item's [soft tokens, width] features;
std::vector<Activation> gemma4_pooler_activations(const VisionTower& v, std::int64_t patches,
                                                  std::int64_t outputs, std::int64_t soft_tokens,
                                                  std::int64_t element_bytes);
// - embed_vision (RMSNorm without weight, the projection to `text_hidden`) over those
//   features: the item's embeddings.
std::vector<Activation> gemma4_embed_vision_activations(const VisionTower& v,
                                                        std::int64_t soft_tokens,
                                                        std::int64_t text_hidden,
                                                        std::int64_t element_bytes);

// The tensors of the ViT's forward over `patches` patches on one rank (TP shards qkv, fc1 and
// the mergers' fc1; the stream, norms and outputs are whole on every rank). Each list leaves
// one survivor (free_after -1), the tensor the next step reads:
// - embedding: the patch embedding plus the interpolated position embedding, the stream;
std::vector<Activation> vit_embedding_activations(const VisionTower& v, std::int64_t patches,
                                                  std::int64_t element_bytes);
// - a block's attention half, then its MLP half: each ends in the new stream (the caller
//   frees the old one); Qwen2.5-VL's attention half ends in its projection instead, which
//   the fused norm2 adds to the stream in place;
std::vector<Activation> vit_attention_activations(const VisionTower& v, int tp,
                                                  std::int64_t patches, std::int64_t element_bytes);
std::vector<Activation> vit_mlp_activations(const VisionTower& v, int tp, std::int64_t patches,
                                            std::int64_t element_bytes);
// - a patch merger (deepstack or final): the merged features, out_hidden_size wide.
std::vector<Activation> vit_merger_activations(const VisionTower& v, int tp, std::int64_t patches,
                                               std::int64_t element_bytes);

// Qwen2.5-VL's own lists (qwen2_5_vl.py at fb33ec8):
// - norm2(x, residual=x_attn), then Qwen2_5_VisionMLP over its output (gate_up, SiLU-and-mul,
//   down, all held until it returns), then residual + the MLP's output: the new stream. The
//   fused CUDA kernel normalizes in place; RMSNorm's native forward (custom ops off, the
//   default under torch.compile) returns a new normalized tensor and a new residual, held
//   until the block returns: two more stream-sized tensors beside the MLP. Two real vLLM logs
//   of Qwen2.5-VL-7B (an image on an RTX 4090, a 14-frame video on an A100) each show the
//   profile 2 x the stream above the fused form.
std::vector<Activation> qwen25_vit_mlp_activations(const VisionTower& v, int tp,
                                                   std::int64_t patches, std::int64_t element_bytes,
                                                   bool native_rms_norm);
// - Qwen2_5_VisionPatchMerger: ln_q (held until it returns), mlp.0, GELU, mlp.2.
std::vector<Activation> qwen25_vit_merger_activations(const VisionTower& v, int tp,
                                                      std::int64_t patches,
                                                      std::int64_t element_bytes);

// Gemma 3's SigLIP (siglip.py at 0c028ba) over `patches` patches (all items), the layer's
// input held by the caller:
// - SiglipEncoderLayer's attention half: layer_norm1, qkv, the varlen flash attention's output
//   (q/k/v are views), out_proj (row-parallel), to which the residual is added in place;
std::vector<Activation> siglip_attention_activations(const VisionTower& v, int tp,
                                                     std::int64_t patches,
                                                     std::int64_t element_bytes);
// - its MLP half: layer_norm2, fc1, gelu_pytorch_tanh (out of place), fc2, residual added in
//   place: fc2's output is the layer's;
std::vector<Activation> siglip_mlp_activations(const VisionTower& v, int tp, std::int64_t patches,
                                               std::int64_t element_bytes);
// - Gemma3MultiModalProjector over `items` images: the contiguous [D, side, side] copy, the
//   average pool to mm_tokens_per_image, the soft-embedding norm and the projection to the
//   language model's width (`text_hidden`); every stage is held until it returns.
std::vector<Activation> gemma3_projector_activations(const VisionTower& v, std::int64_t text_hidden,
                                                     std::int64_t items, std::int64_t patches,
                                                     std::int64_t element_bytes);

// LLaVA's CLIP (clip.py CLIPEncoderLayer, read in its 2026 copy) over `positions` positions
// (each image's patches and its class token): the attention half is SigLIP's list (its
// out_proj output, to which the caller adds the residual into a new tensor); the MLP half:
// layer_norm2, fc1, QuickGELU, fc2, held until it returns. QuickGELU's CUDA op writes one
// new tensor; its native forward (custom ops off, the default under torch.compile),
// x * sigmoid(1.702 * x), makes two intermediates first, one alive at a time beside fc1's
// output.
std::vector<Activation> clip_mlp_activations(const VisionTower& v, int tp, std::int64_t positions,
                                             std::int64_t element_bytes, bool native_quick_gelu);
// - LlavaMultiModalProjector over `tokens` selected features: the features copied contiguous
//   when the class token was sliced off more than one image (a strided view otherwise
//   reshapes in place), column-parallel linear_1, GELU (nn.GELU, out of place), row-parallel
//   linear_2 at the language model's width: the encoder's output.
std::vector<Activation> llava_projector_activations(const VisionTower& v, std::int64_t text_hidden,
                                                    int tp, std::int64_t items, std::int64_t tokens,
                                                    std::int64_t element_bytes);

// The rotary tables the blocks share: cos and sin, [patches, head_dim / 2] each, gathered from
// get_rope's cache in the model dtype (partial_rotary_factor 0.5).
Bytes vit_rotary_bytes(const VisionTower& v, std::int64_t patches, std::int64_t element_bytes);

}  // namespace gpumem::vllm

#endif  // GPUMEM_ENGINE_VLLM_ENCODER_PROFILE_H_
