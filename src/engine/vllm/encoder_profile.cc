#include "engine/vllm/encoder_profile.h"

#include <algorithm>

namespace gpumem::vllm {
namespace {

// vllm qwen2_vl.py get_image_size_with_most_features: an item of at most this aspect ratio.
constexpr std::int64_t kMaxAspectRatio = 200;
// qwen3_vl.py Qwen3VLDummyInputsBuilder: the dummy video has two frames.
constexpr std::int64_t kDummyVideoFrames = 2;

// The closest factor pair of `s`: its largest divisor h with h * h <= s, and s / h.
std::pair<std::int64_t, std::int64_t> closest_factor_pair(std::int64_t s) {
  std::int64_t h = 1;
  for (std::int64_t d = 1; d * d <= s; ++d) {
    if (s % d == 0) h = d;
  }
  return {h, s / h};
}

// The largest count of merged patches up to `limit` whose closest factor pair (h <= w) has
// w / h <= kMaxAspectRatio.
std::int64_t largest_factorable(std::int64_t limit) {
  for (std::int64_t s = limit; s > 0; --s) {
    const auto [h, w] = closest_factor_pair(s);
    if (w <= kMaxAspectRatio * h) return s;
  }
  return 1;
}

std::int64_t merged_patch_pixels(const VisionTower& v) {
  const std::int64_t unit = v.patch_size * v.spatial_merge_size;
  return unit * unit;
}

}  // namespace

std::int64_t EncoderProfile::patches() const { return items * tokens_per_item * merge * merge; }

std::int64_t qwen_vl_max_image_tokens(const VisionTower& v) {
  const std::int64_t max_pixels =
      v.kind == VisionKind::kQwen25Vit ? kQwen25VlMaxImagePixels : kQwen3VlMaxImagePixels;
  return largest_factorable(max_pixels / merged_patch_pixels(v));
}

std::pair<std::int64_t, std::int64_t> qwen_vl_max_image_grid(const VisionTower& v) {
  return closest_factor_pair(qwen_vl_max_image_tokens(v));
}

std::int64_t qwen3_vl_max_video_tokens(const VisionTower& v) {
  // get_max_video_tokens treats a video as images of max_pixels / temporal_patch_size each.
  const std::int64_t per_frame_group =
      largest_factorable(kQwen3VlMaxVideoPixels / v.temporal_patch_size / merged_patch_pixels(v));
  const std::int64_t groups =
      (kDummyVideoFrames + v.temporal_patch_size - 1) / v.temporal_patch_size;
  return per_frame_group * groups;
}

EncoderProfile plan_qwen_vl_profile(const VisionTower& v, const EncoderLimits& limits) {
  EncoderProfile p;
  p.merge = v.spatial_merge_size;
  p.tokens_per_item = qwen_vl_max_image_tokens(v);
  const std::int64_t t = p.tokens_per_item;
  p.budget = std::max(limits.max_num_batched_tokens, t);
  const std::int64_t per_prompt = std::max<std::int64_t>(
      1, std::min(limits.image_limit.value_or(kDefaultItemsPerPrompt), limits.max_model_len / t));
  const std::int64_t requests =
      limits.chunked_prefill ? limits.max_num_seqs
                             : std::min(limits.max_num_seqs, limits.max_num_batched_tokens / t);
  p.items = std::max<std::int64_t>(1, std::min(p.budget / t, requests * per_prompt));
  return p;
}

std::vector<Activation> vit_embedding_activations(const VisionTower& v, std::int64_t n,
                                                  std::int64_t eb) {
  // Qwen3_VisionPatchEmbed (kernel = stride), then fast_pos_embed_interpolate: the four
  // bilinear neighbours' rows and weights, their sum, the merge-order permute and the
  // per-item cat (copies), added to the patch embedding.
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const int patch = l.add("patch_embed", n * d, eb);
  const int rows = l.add("pos_embed.neighbours", 4 * n * d, eb);
  const int weights = l.add("pos_embed.weights", 4 * n, eb);
  const int sum = l.add("pos_embed.sum", n * d, eb);
  l.dies_after({rows, weights}, sum);
  const int permuted = l.add("pos_embed.permuted", n * d, eb);
  l.dies_after({sum}, permuted);
  const int cat = l.add("pos_embed.cat", n * d, eb);
  l.dies_after({permuted}, cat);
  const int stream = l.add("hidden_states", n * d, eb);
  l.dies_after({patch, cat}, stream);
  return l.take();
}

std::vector<Activation> vit_attention_activations(const VisionTower& v, int tp, std::int64_t n,
                                                  std::int64_t eb) {
  // Qwen3_VisionBlock: x + attn(norm1(x)). Qwen2_5_VisionAttention keeps its input, qkv, the
  // q/k copy and its rotated copy until it returns; flash attention's varlen output over
  // cu_seqlens (no sequence-squared matrix; its softmax log-sum-exp is freed inside the op),
  // the contiguous re-layout, then proj (row-parallel, all-reduced in place).
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const int norm = l.add("norm1", n * d, eb);
  const int qkv = l.add("attn.qkv", n * 3 * d / tp, eb);
  const int qk = l.add("attn.qk_reshaped", n * 2 * d / tp, eb);
  const int rotated = l.add("attn.qk_rotated", n * 2 * d / tp, eb);
  const int out = l.add("attn.flash_attn_out", n * d / tp, eb);
  const int context = l.add("attn.context", n * d / tp, eb);
  l.dies_after({out}, context);
  const int proj = l.add("attn.proj", n * d, eb);
  l.dies_after({norm, qkv, qk, rotated, context}, proj);
  if (v.kind == VisionKind::kQwen25Vit) return l.take();
  const int stream = l.add("hidden_states", n * d, eb);
  l.dies_after({proj}, stream);
  return l.take();
}

std::vector<Activation> qwen25_vit_mlp_activations(const VisionTower& v, int tp, std::int64_t n,
                                                   std::int64_t eb) {
  // norm2(x, residual=x_attn) normalizes in place (fused_add_rms_norm); the MLP's gate_up and
  // activation stay referenced until it returns; residual + down is the new stream.
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size / tp;
  const int gate_up = l.add("mlp.gate_up_proj", n * 2 * inter, eb);
  const int act = l.add("mlp.act_fn", n * inter, eb);
  const int down = l.add("mlp.down_proj", n * d, eb);
  l.dies_after({gate_up, act}, down);
  const int stream = l.add("hidden_states", n * d, eb);
  l.dies_after({down}, stream);
  return l.take();
}

std::vector<Activation> qwen25_vit_merger_activations(const VisionTower& v, int tp, std::int64_t n,
                                                      std::int64_t eb) {
  // ln_q's output stays the merger's local until it returns; nn.Sequential frees each stage's
  // input once the next exists.
  ActivationList l;
  const std::int64_t rows = n / (v.spatial_merge_size * v.spatial_merge_size);
  const std::int64_t width = v.hidden_size * v.spatial_merge_size * v.spatial_merge_size;
  const int norm = l.add("merger.ln_q", n * v.hidden_size, eb);
  const int fc1 = l.add("merger.mlp.0", rows * width / tp, eb);
  const int act = l.add("merger.mlp.1", rows * width / tp, eb);
  l.dies_after({fc1}, act);
  const int fc2 = l.add("merger.mlp.2", rows * v.out_hidden_size, eb);
  l.dies_after({norm, act}, fc2);
  return l.take();
}

std::vector<Activation> vit_mlp_activations(const VisionTower& v, int tp, std::int64_t n,
                                            std::int64_t eb) {
  // x + mlp(norm2(x)): Qwen3_VisionMLP linear_fc1 (column-parallel), the out-of-place
  // gelu_pytorch_tanh, linear_fc2 (row-parallel).
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size / tp;
  const int norm = l.add("norm2", n * d, eb);
  const int fc1 = l.add("mlp.linear_fc1", n * inter, eb);
  const int act = l.add("mlp.act_fn", n * inter, eb);
  l.dies_after({fc1}, act);
  const int fc2 = l.add("mlp.linear_fc2", n * d, eb);
  l.dies_after({norm, act}, fc2);
  const int stream = l.add("hidden_states", n * d, eb);
  l.dies_after({fc2}, stream);
  return l.take();
}

std::vector<Activation> vit_merger_activations(const VisionTower& v, int tp, std::int64_t n,
                                               std::int64_t eb) {
  // Qwen3_VisionPatchMerger: the LayerNorm (before the shuffle, or after it in the deepstack
  // mergers: the same bytes), merge^2 patches viewed as one row, linear_fc1 (column-parallel),
  // GELU, linear_fc2 (row-parallel) to out_hidden_size.
  ActivationList l;
  const std::int64_t rows = n / (v.spatial_merge_size * v.spatial_merge_size);
  const std::int64_t width = v.hidden_size * v.spatial_merge_size * v.spatial_merge_size;
  const int norm = l.add("merger.norm", rows * width, eb);
  const int fc1 = l.add("merger.linear_fc1", rows * width / tp, eb);
  l.dies_after({norm}, fc1);
  const int act = l.add("merger.act_fn", rows * width / tp, eb);
  l.dies_after({fc1}, act);
  const int fc2 = l.add("merger.linear_fc2", rows * v.out_hidden_size, eb);
  l.dies_after({act}, fc2);
  return l.take();
}

Bytes vit_rotary_bytes(const VisionTower& v, std::int64_t n, std::int64_t eb) {
  const std::int64_t head_dim = v.hidden_size / v.num_attention_heads;
  return bytes(n * (head_dim / 2) * eb);
}

}  // namespace gpumem::vllm
