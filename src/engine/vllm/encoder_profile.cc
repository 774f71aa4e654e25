#include "engine/vllm/encoder_profile.h"

#include <algorithm>
#include <cmath>
#include <string>

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

std::int64_t integer_sqrt(std::int64_t x) {
  std::int64_t r = 0;
  while ((r + 1) * (r + 1) <= x) ++r;
  return r;
}

std::int64_t merged_patch_pixels(const VisionTower& v) {
  const std::int64_t unit = v.patch_size * v.spatial_merge_size;
  return unit * unit;
}

}  // namespace

std::int64_t EncoderProfile::patches() const { return items * tokens_per_item * merge * merge; }

std::int64_t qwen_vl_max_image_tokens(const VisionTower& v) {
  // Qwen2.5-VL's processing info is Qwen2-VL's (qwen2_5_vl.py subclasses qwen2_vl.py's).
  const std::int64_t max_pixels =
      v.kind == VisionKind::kQwen3Vit ? kQwen3VlMaxImagePixels : kQwen25VlMaxImagePixels;
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

std::int64_t qwen25_vl_max_video_frames(const VisionTower& v, std::int64_t max_model_len) {
  const std::int64_t per_group = qwen_vl_max_image_tokens(v);
  const auto tokens = [&](std::int64_t frames) {
    const std::int64_t padded = frames + frames % v.temporal_patch_size;
    return std::max<std::int64_t>(1, padded / v.temporal_patch_size) * per_group;
  };
  // _get_max_video_frames: from one frame, add frames while the next count still fits.
  std::int64_t frames = 1;
  while (frames < kQwen2VlMaxFramesPerVideo && tokens(frames + 1) <= max_model_len) ++frames;
  return frames;
}

namespace {

// vllm multimodal/encoder_budget.py MultiModalBudget for items of `tokens` embeddings made of
// `merge` x `merge` patches each; `limit` is the modality's --limit-mm-per-prompt.
EncoderProfile plan_profile(std::int64_t tokens, std::int64_t merge,
                            std::optional<std::int64_t> limit, const EncoderLimits& limits) {
  EncoderProfile p;
  p.merge = merge;
  p.tokens_per_item = tokens;
  const std::int64_t t = p.tokens_per_item;
  p.budget = std::max(limits.max_num_batched_tokens, t);
  const std::int64_t per_prompt = std::max<std::int64_t>(
      1, std::min(limit.value_or(kDefaultItemsPerPrompt), limits.max_model_len / t));
  const std::int64_t requests =
      limits.chunked_prefill ? limits.max_num_seqs
                             : std::min(limits.max_num_seqs, limits.max_num_batched_tokens / t);
  p.items = std::max<std::int64_t>(1, std::min(p.budget / t, requests * per_prompt));
  return p;
}

}  // namespace

EncoderProfile plan_qwen_vl_profile(const VisionTower& v, const EncoderLimits& limits) {
  const std::int64_t image = qwen_vl_max_image_tokens(v);
  if (v.kind != VisionKind::kQwen3Vit && limits.video_limit != 0) {
    const std::int64_t frames = qwen25_vl_max_video_frames(v, limits.max_model_len);
    const std::int64_t groups = (frames + frames % v.temporal_patch_size) / v.temporal_patch_size;
    if (limits.image_limit == 0 || groups * image > image) {
      EncoderProfile p =
          plan_profile(groups * image, v.spatial_merge_size, limits.video_limit, limits);
      p.modality = "video";
      p.temporal_groups = groups;
      return p;
    }
  }
  return plan_profile(image, v.spatial_merge_size, limits.image_limit, limits);
}

EncoderProfile plan_gemma3_profile(const VisionTower& v, const EncoderLimits& limits) {
  const std::int64_t side = v.image_size / v.patch_size;
  const std::int64_t tokens_side = integer_sqrt(v.tokens_per_image);
  return plan_profile(v.tokens_per_image, side / tokens_side, limits.image_limit, limits);
}

EncoderProfile plan_gemma4_profile(const VisionTower& v, const EncoderLimits& limits) {
  const std::int64_t video = kGemma4VideoFrames * (kGemma4FrameSoftTokens + 2 + 6);
  // get_modality_with_max_tokens: max over (tokens, name), so a tie profiles the video.
  if (limits.video_limit != 0 && (limits.image_limit == 0 || video >= v.tokens_per_image)) {
    EncoderProfile p = plan_profile(video, v.spatial_merge_size, limits.video_limit, limits);
    p.modality = "video";
    p.temporal_groups = kGemma4VideoFrames;
    return p;
  }
  return plan_profile(v.tokens_per_image, v.spatial_merge_size, limits.image_limit, limits);
}

Gemma4Item gemma4_dummy_item(const VisionTower& v, std::int64_t max_soft_tokens) {
  // _get_dummy_images and _get_dummy_videos: the image processor's size, 224 x 224 when it
  // sets none.
  constexpr double kDummySide = 224;
  const std::int64_t k = v.spatial_merge_size;
  const std::int64_t max_patches = max_soft_tokens * k * k;
  const double factor = std::sqrt(static_cast<double>(max_patches * v.patch_size * v.patch_size) /
                                  (kDummySide * kDummySide));
  const std::int64_t unit = k * v.patch_size;
  const auto side = static_cast<std::int64_t>(std::floor(kDummySide * factor / unit)) * unit;
  const std::int64_t patches = (side / v.patch_size) * (side / v.patch_size);
  return {max_patches, std::min(patches / (k * k), max_soft_tokens)};
}

namespace {

// Gemma4RMSNorm: x.float(), then x times the reciprocal root mean square, both float32 and
// alive together, then the weighted result cast back: `elements` wide.
int add_gemma4_rms_norm(ActivationList& l, const std::string& name, std::int64_t elements,
                        std::int64_t eb) {
  const int widened = l.add(name + ".float", elements, 4);
  const int normalized = l.add(name + ".normalized", elements, 4);
  const int out = l.add(name, elements, eb);
  l.dies_after({widened, normalized}, out);
  return out;
}

}  // namespace

std::vector<Activation> gemma4_patch_embedding_activations(const VisionTower& v, std::int64_t n,
                                                           std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t values = v.num_channels * v.patch_size * v.patch_size;
  const std::int64_t rows = v.num_position_embeddings;
  const int shifted = l.add("patch_embedder.pixels_shifted", n * values, eb);
  const int scaled = l.add("patch_embedder.pixels_scaled", n * values, eb);
  l.dies_after(shifted, scaled);
  // forward's local pixel_values holds the scaled pixels until it returns.
  const int proj = l.add("patch_embedder.input_proj", n * d, eb);
  // _position_embeddings: its locals (the clamped ids, the cast one-hot) live until it returns.
  const int clamped = l.add("patch_embedder.positions_clamped", n * 2, 8);
  const int one_hot = l.add("patch_embedder.one_hot", n * 2 * rows, 8);
  const int cast = l.add("patch_embedder.one_hot_cast", n * 2 * rows, eb);
  l.dies_after(one_hot, cast);
  const int product = l.add("patch_embedder.position_matmul", 2 * n * d, eb);
  const int summed = l.add("patch_embedder.position_sum", n * d, eb);
  l.dies_after(product, summed);
  const int masked = l.add("patch_embedder.position_masked", n * d, eb);
  l.dies_after({summed, clamped, cast}, masked);
  const int stream = l.add("patch_embedder.embeddings", n * d, eb);
  l.dies_after({scaled, proj, masked}, stream);
  return l.take();
}

std::vector<Activation> gemma4_attention_activations(const VisionTower& v, std::int64_t n,
                                                     std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const int normed = add_gemma4_rms_norm(l, "input_layernorm", n * d, eb);
  std::vector<int> inputs;
  for (const char* head : {"q", "k", "v"}) {
    const std::string name = std::string("self_attn.") + head;
    const int proj = l.add(name + "_proj", n * d, eb);
    const int norm = add_gemma4_rms_norm(l, name + "_norm", n * d, eb);
    l.dies_after(proj, norm);
    if (std::string_view(head) == "v") {
      inputs.push_back(norm);
      continue;
    }
    // apply_multidimensional_rope: each half rotated (rotate_half's cat, then x*cos +
    // rotate_half(x)*sin), then the halves concatenated.
    const int rotated = l.add(name + "_rotate_half", n * d, eb);
    const int roped = l.add(name + "_rope", n * d, eb);
    l.dies_after({norm, rotated}, roped);
    inputs.push_back(roped);
  }
  l.dies_after(normed, inputs.back());
  const int attn = l.add("self_attn.sdpa", n * d, eb);
  const int contiguous = l.add("self_attn.contiguous", n * d, eb);
  l.dies_after({inputs[0], inputs[1], inputs[2], attn}, contiguous);
  const int out = l.add("self_attn.o_proj", n * d, eb);
  l.dies_after(contiguous, out);
  const int post = add_gemma4_rms_norm(l, "post_attention_layernorm", n * d, eb);
  l.dies_after(out, post);
  const int stream = l.add("residual_sum", n * d, eb);
  l.dies_after(post, stream);
  return l.take();
}

std::vector<Activation> gemma4_mlp_activations(const VisionTower& v, std::int64_t n,
                                               std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size;
  const int normed = add_gemma4_rms_norm(l, "pre_feedforward_layernorm", n * d, eb);
  const int gate = l.add("mlp.gate_proj", n * inter, eb);
  const int act = l.add("mlp.act", n * inter, eb);
  l.dies_after(gate, act);
  const int up = l.add("mlp.up_proj", n * inter, eb);
  const int product = l.add("mlp.product", n * inter, eb);
  l.dies_after({act, up}, product);
  const int down = l.add("mlp.down_proj", n * d, eb);
  l.dies_after({product, normed}, down);
  const int post = add_gemma4_rms_norm(l, "post_feedforward_layernorm", n * d, eb);
  l.dies_after(down, post);
  const int stream = l.add("residual_sum", n * d, eb);
  l.dies_after(post, stream);
  return l.take();
}

std::vector<Activation> gemma4_pooler_activations(const VisionTower& v, std::int64_t n,
                                                  std::int64_t outputs, std::int64_t soft,
                                                  std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const int masked = l.add("pooler.masked_fill", n * d, eb);
  const int widened = l.add("pooler.float", n * d, 4);
  const int kernel = l.add("pooler.kernel_one_hot", n * outputs, 8);
  const int weights = l.add("pooler.weights", n * outputs, 4);
  l.dies_after(kernel, weights);
  const int pooled = l.add("pooler.pooled", outputs * d, 4);
  l.dies_after({masked, widened, weights}, pooled);
  const int cast = l.add("pooler.pooled_cast", outputs * d, eb);
  l.dies_after(pooled, cast);
  int features = l.add("pooler.unpadded", soft * d, eb);
  l.dies_after(cast, features);
  if (v.standardize) {
    const int centered = l.add("standardize.centered", soft * d, eb);
    l.dies_after(features, centered);
    features = l.add("standardize.scaled", soft * d, eb);
    l.dies_after(centered, features);
  }
  return l.take();
}

std::vector<Activation> gemma4_embed_vision_activations(const VisionTower& v, std::int64_t soft,
                                                        std::int64_t text_hidden, std::int64_t eb) {
  ActivationList l;
  const int normed = add_gemma4_rms_norm(l, "embed_vision.norm", soft * v.hidden_size, eb);
  const int out = l.add("embed_vision.embedding_projection", soft * text_hidden, eb);
  l.dies_after(normed, out);
  return l.take();
}

LlavaNextGrid llava_next_dummy_grid(const VisionTower& v) {
  const std::int64_t side = v.image_size / v.patch_size;
  LlavaNextGrid best;
  for (size_t i = 0; i + 1 < v.grid_pinpoints.size(); i += 2) {
    LlavaNextGrid g;
    g.rows = v.grid_pinpoints[i] / v.image_size;
    g.columns = v.grid_pinpoints[i + 1] / v.image_size;
    g.tokens = v.num_patches() + g.rows * side * (g.columns * side + 1);
    if (g.tokens > best.tokens) best = g;
  }
  return best;
}

EncoderProfile plan_llava_profile(const VisionTower& v, const EncoderLimits& limits) {
  const std::int64_t tokens = v.grid_pinpoints.empty()
                                  ? v.num_patches() + (v.keep_class_token ? 1 : 0)
                                  : llava_next_dummy_grid(v).tokens;
  return plan_profile(tokens, 1, limits.image_limit, limits);
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
                                                   std::int64_t eb, bool native_rms_norm) {
  // The fused norm2 (fused_add_rms_norm) writes its outputs into x and x_attn; the native one
  // allocates both. The MLP's gate_up and activation stay referenced until it returns;
  // residual + down is the new stream.
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size / tp;
  std::vector<int> block_locals;
  if (native_rms_norm) {
    block_locals.push_back(l.add("norm2", n * d, eb));
    block_locals.push_back(l.add("norm2.residual", n * d, eb));
  }
  const int gate_up = l.add("mlp.gate_up_proj", n * 2 * inter, eb);
  const int act = l.add("mlp.act_fn", n * inter, eb);
  const int down = l.add("mlp.down_proj", n * d, eb);
  l.dies_after({gate_up, act}, down);
  const int stream = l.add("hidden_states", n * d, eb);
  l.dies_after({down}, stream);
  for (int t : block_locals) l.dies_after(t, stream);
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

std::vector<Activation> siglip_attention_activations(const VisionTower& v, int tp, std::int64_t n,
                                                     std::int64_t eb) {
  // SiglipAttention under MMEncoderAttention's varlen flash attention: q, k and v are views
  // of qkv, and the output is the kernel's; layer_norm1's output is the call's argument, held
  // until it returns; the residual is added into out_proj's output in place.
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const int norm = l.add("layer_norm1", n * d, eb);
  const int qkv = l.add("self_attn.qkv_proj", n * 3 * d / tp, eb);
  const int out = l.add("self_attn.attn", n * d / tp, eb);
  const int proj = l.add("self_attn.out_proj", n * d, eb);
  l.dies_after({norm, qkv, out}, proj);
  return l.take();
}

std::vector<Activation> siglip_mlp_activations(const VisionTower& v, int tp, std::int64_t n,
                                               std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size / tp;
  const int norm = l.add("layer_norm2", n * d, eb);
  const int fc1 = l.add("mlp.fc1", n * inter, eb);
  const int act = l.add("mlp.activation_fn", n * inter, eb);
  l.dies_after({fc1}, act);
  const int fc2 = l.add("mlp.fc2", n * d, eb);
  l.dies_after({norm, act}, fc2);
  return l.take();
}

std::vector<Activation> clip_mlp_activations(const VisionTower& v, int tp, std::int64_t n,
                                             std::int64_t eb, bool native_quick_gelu) {
  if (!native_quick_gelu) return siglip_mlp_activations(v, tp, n, eb);
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t inter = v.intermediate_size / tp;
  const int norm = l.add("layer_norm2", n * d, eb);
  const int fc1 = l.add("mlp.fc1", n * inter, eb);
  const int scaled = l.add("mlp.activation_fn.scaled", n * inter, eb);
  const int sigmoid = l.add("mlp.activation_fn.sigmoid", n * inter, eb);
  l.dies_after(scaled, sigmoid);
  const int act = l.add("mlp.activation_fn", n * inter, eb);
  l.dies_after({sigmoid, fc1}, act);
  const int fc2 = l.add("mlp.fc2", n * d, eb);
  l.dies_after({norm, act}, fc2);
  return l.take();
}

std::vector<Activation> llava_projector_activations(const VisionTower& v, std::int64_t text_hidden,
                                                    int tp, std::int64_t items, std::int64_t tokens,
                                                    std::int64_t eb) {
  ActivationList l;
  const std::int64_t width = text_hidden / tp;
  const bool copied = !v.keep_class_token && items > 1;
  const int features =
      copied ? l.add("multi_modal_projector.contiguous", tokens * v.hidden_size, eb) : -1;
  const int first = l.add("multi_modal_projector.linear_1", tokens * width, eb);
  if (copied) l.dies_after(features, first);
  const int act = l.add("multi_modal_projector.act", tokens * width, eb);
  l.dies_after(first, act);
  const int second = l.add("multi_modal_projector.linear_2", tokens * text_hidden, eb);
  l.dies_after(act, second);
  return l.take();
}

std::vector<Activation> gemma3_projector_activations(const VisionTower& v, std::int64_t text_hidden,
                                                     std::int64_t items, std::int64_t n,
                                                     std::int64_t eb) {
  ActivationList l;
  const std::int64_t d = v.hidden_size;
  const std::int64_t tokens = items * v.tokens_per_image;
  const int reshaped = l.add("multi_modal_projector.contiguous", n * d, eb);
  const int pooled = l.add("multi_modal_projector.avg_pool", tokens * d, eb);
  const int normed = l.add("multi_modal_projector.mm_soft_emb_norm", tokens * d, eb);
  const int projected = l.add("multi_modal_projector.matmul", tokens * text_hidden, eb);
  l.dies_after({reshaped, pooled, normed}, projected);
  return l.take();
}

Bytes vit_rotary_bytes(const VisionTower& v, std::int64_t n, std::int64_t eb) {
  const std::int64_t head_dim = v.hidden_size / v.num_attention_heads;
  return bytes(n * (head_dim / 2) * eb);
}

}  // namespace gpumem::vllm
