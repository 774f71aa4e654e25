// ForwardPass's encoder step (forward_pass.h encoder_forward): vLLM's profile_run runs a
// multimodal model's vision tower once, eagerly, on the dummy images encoder_profile.h sizes;
// here each modelled tower's forward is replayed tensor by tensor through the allocator.
#include <algorithm>

#include "engine/vllm/forward_pass.h"

namespace gpumem::vllm {

Status ForwardPass::vit_step(const std::vector<Activation>& list, BlockHandle& stream) {
  std::vector<BlockHandle> survivors;
  GPUMEM_RETURN_IF_ERROR(replay(list, &survivors));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  stream = survivors.front();
  return {};
}

// vllm qwen2_5_vl.py Qwen2_5_VisionTransformer.forward (read at fb33ec8): the patch embedding,
// the window order's index tensors and cu_seqlens copied to the GPU beside the rotary tables,
// the patch embedding gathered into window order, every block (norm2 adds the attention's
// projection to the stream in place, or into new tensors when RMSNorm runs natively), the
// merger, then the merged features gathered back into raster order: the output, kept in the
// encoder cache.
Status ForwardPass::qwen25_encoder_forward(const EncoderProfile& e,
                                           std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const std::int64_t n = e.patches();
  const std::int64_t eb = element_bytes_;
  const int tp = p_.tp;
  const std::int64_t rows = n / (v.spatial_merge_size * v.spatial_merge_size);
  std::vector<BlockHandle> small;  // cu_seqlens, cu_window_seqlens, the rotary tables, indexes
  const auto allocate_small = [&](Bytes size) -> Status {
    Result<BlockHandle> b = env_.allocator.allocate(size, Category::kActivations);
    if (!b.ok()) return b.status();
    small.push_back(*b);
    return {};
  };
  // patch_embed (a ReplicatedLinear over the flattened patches), then the index tensors
  // below, then hidden_states[window_index]: the merge groups gathered into window order.
  Result<BlockHandle> patch =
      env_.allocator.allocate(bytes(n * v.hidden_size * eb), Category::kActivations);
  if (!patch.ok()) return patch.status();
  // get_window_index_thw: windows of window_size // merge // patch merged patches a side; a
  // padded window that holds none is dropped (unique_consecutive), so a grid of r x c merged
  // patches (an image, or a video's frame group) has ceil(r / w) x ceil(c / w) windows.
  // cu_seqlens holds grids + 1 int32 entries (each grid attends alone in the full-attention
  // blocks), cu_window_seqlens windows + 1; window_index and its inverse one int64 per merged
  // patch.
  const std::int64_t side =
      std::max<std::int64_t>(1, v.window_size / v.spatial_merge_size / v.patch_size);
  const auto [grid_rows, grid_columns] = qwen_vl_max_image_grid(v);
  const std::int64_t grids = e.items * e.temporal_groups;  // a video's frame groups attend apart
  const std::int64_t windows =
      grids * ((grid_rows + side - 1) / side) * ((grid_columns + side - 1) / side);
  GPUMEM_RETURN_IF_ERROR(allocate_small(bytes((grids + 1) * 4)));
  GPUMEM_RETURN_IF_ERROR(allocate_small(bytes((windows + 1) * 4)));
  for (int table = 0; table < 2; ++table) {
    GPUMEM_RETURN_IF_ERROR(allocate_small(vit_rotary_bytes(v, n, eb)));
  }
  GPUMEM_RETURN_IF_ERROR(allocate_small(bytes(rows * 8)));
  GPUMEM_RETURN_IF_ERROR(allocate_small(bytes(rows * 8)));
  Result<BlockHandle> window_order =
      env_.allocator.allocate(bytes(n * v.hidden_size * eb), Category::kActivations);
  if (!window_order.ok()) return window_order.status();
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*patch));
  BlockHandle stream = *window_order;
  std::vector<BlockHandle> step;
  const Bytes stream_bytes = bytes(n * v.hidden_size * eb);
  for (std::int64_t block = 0; block < v.num_hidden_layers; ++block) {
    step.clear();
    GPUMEM_RETURN_IF_ERROR(replay(vit_attention_activations(v, tp, n, eb), &step));
    const BlockHandle projection = step.front();
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(projection, stream_bytes, nullptr));
    GPUMEM_RETURN_IF_ERROR(
        vit_step(qwen25_vit_mlp_activations(v, tp, n, eb, p_.native_rms_norm), stream));
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(stream, stream_bytes, nullptr));
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(projection));
  }
  step.clear();
  GPUMEM_RETURN_IF_ERROR(replay(qwen25_vit_merger_activations(v, tp, n, eb), &step));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  // hidden_states[reverse_indices, :]: the merged rows back in raster order.
  Result<BlockHandle> out =
      env_.allocator.allocate(bytes(rows * v.out_hidden_size * eb), Category::kActivations);
  if (!out.ok()) return out.status();
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(step.front()));
  for (BlockHandle b : small) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
  held.push_back(*out);
  return {};
}

// vllm qwen2_vl.py Qwen2VisionTransformer.forward: the patch embedding (a Conv3d over the
// flattened patches) is the stream, beside the rotary cos and sin tables; every block adds
// attention and then the MLP (fc1, QuickGELU, fc2) into new streams, each attention after
// full attention over its item (no windows); the merger's output (ln_q, mlp.0, GELU, mlp.2)
// is the embedding _process_image_input splits into per-item views, kept in the encoder cache.
Status ForwardPass::qwen2_encoder_forward(const EncoderProfile& e, std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const std::int64_t n = e.patches();
  const std::int64_t eb = element_bytes_;
  const int tp = p_.tp;
  Result<BlockHandle> stream_block =
      env_.allocator.allocate(bytes(n * v.hidden_size * eb), Category::kActivations);
  if (!stream_block.ok()) return stream_block.status();
  BlockHandle stream = *stream_block;
  std::vector<BlockHandle> rotary;
  for (int table = 0; table < 2; ++table) {
    Result<BlockHandle> t =
        env_.allocator.allocate(vit_rotary_bytes(v, n, eb), Category::kActivations);
    if (!t.ok()) return t.status();
    rotary.push_back(*t);
  }
  const Bytes stream_bytes = bytes(n * v.hidden_size * eb);
  for (std::int64_t block = 0; block < v.num_hidden_layers; ++block) {
    GPUMEM_RETURN_IF_ERROR(vit_step(vit_attention_activations(v, tp, n, eb), stream));
    GPUMEM_RETURN_IF_ERROR(vit_step(vit_mlp_activations(v, tp, n, eb), stream));
    for (int reduce = 0; reduce < 2 && tp > 1; ++reduce) {
      GPUMEM_RETURN_IF_ERROR(all_reduce(stream, stream_bytes, nullptr));
    }
  }
  std::vector<BlockHandle> merged;
  GPUMEM_RETURN_IF_ERROR(replay(qwen25_vit_merger_activations(v, tp, n, eb), &merged));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  for (BlockHandle b : rotary) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
  held.push_back(merged.front());
  return {};
}

// vllm gemma3_mm.py _process_image_input over siglip.py SiglipVisionModel (read at 0c028ba):
// the patch embedding (a convolution's output, N x 1152 x 64 x 64 for 896-pixel images) gets
// the position embedding added in place and stays in the encoder's hidden_states_pool through
// every layer; each layer's input is held while it runs, the residuals are added in place;
// post_layernorm, then Gemma3MultiModalProjector's output, kept in the encoder cache.
Status ForwardPass::gemma3_encoder_forward(const EncoderProfile& e,
                                           std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const std::int64_t n = e.patches();
  const std::int64_t eb = element_bytes_;
  const int tp = p_.tp;
  const std::int64_t per_image = v.num_patches();
  // num_patches: one int64 per item, batched with the pixel values.
  Result<BlockHandle> counts = env_.allocator.allocate(bytes(e.items * 8), Category::kActivations);
  if (!counts.ok()) return counts.status();
  held.push_back(*counts);
  const Bytes stream_bytes = bytes(n * v.hidden_size * eb);
  Result<BlockHandle> embedded = env_.allocator.allocate(stream_bytes, Category::kActivations);
  if (!embedded.ok()) return embedded.status();
  // position_embedding(position_ids): one image's rows, freed after the in-place add.
  Result<BlockHandle> positions =
      env_.allocator.allocate(bytes(per_image * v.hidden_size * eb), Category::kActivations);
  if (!positions.ok()) return positions.status();
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*positions));
  BlockHandle stream = *embedded;
  std::vector<BlockHandle> step;
  for (std::int64_t layer = 0; layer < v.num_hidden_layers; ++layer) {
    step.clear();
    GPUMEM_RETURN_IF_ERROR(replay(siglip_attention_activations(v, tp, n, eb), &step));
    const BlockHandle residual = step.front();
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(residual, stream_bytes, nullptr));
    step.clear();
    GPUMEM_RETURN_IF_ERROR(replay(siglip_mlp_activations(v, tp, n, eb), &step));
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(step.front(), stream_bytes, nullptr));
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(residual));
    if (layer > 0) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
    stream = step.front();
  }
  Result<BlockHandle> normed = env_.allocator.allocate(stream_bytes, Category::kActivations);
  if (!normed.ok()) return normed.status();
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*embedded));
  step.clear();
  GPUMEM_RETURN_IF_ERROR(
      replay(gemma3_projector_activations(v, p_.model.hidden_size, e.items, n, eb), &step));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*normed));
  held.push_back(step.front());
  return {};
}

// vllm gemma4_mm.py _process_video_input and _process_image_input (read at 49e6e47, the v0.21
// code; no PR before #43169, v0.22, changed them): the batched inputs (pixel values in the
// model dtype, int64 positions, a video's frame counts) are held; each item runs through HF's
// Gemma4VisionModel one image or frame at a time (patch embedding, the encoder's mask and
// rotary tables, the layers, the pooler). A frame's embed_vision output is kept until the
// video's frames are concatenated into its output; the images' pooled features are kept until
// embed_vision runs over each, after the last. The outputs stay in the encoder cache. The
// layers all have one shape and each leaves the live set as it found it (a new stream for the
// old one), so replaying one of them per frame reaches every layer's peak without 27 x 96
// replays.
Status ForwardPass::gemma4_encoder_forward(const EncoderProfile& e,
                                           std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const bool video = e.modality == "video";
  const std::int64_t outputs = video ? kGemma4FrameSoftTokens : v.tokens_per_image;
  const Gemma4Item item = gemma4_dummy_item(v, outputs);
  const std::int64_t n = item.padded_patches;
  const std::int64_t eb = element_bytes_;
  const std::int64_t text_hidden = p_.model.hidden_size;
  const std::int64_t per_item = video ? e.temporal_groups : 1;
  const std::int64_t frames = e.items * per_item;
  const std::int64_t values = v.num_channels * v.patch_size * v.patch_size;
  const std::vector<Bytes> inputs =
      video ? std::vector<Bytes>{bytes(frames * n * values * eb), bytes(frames * n * 2 * 8),
                                 bytes(e.items * 8)}
            : std::vector<Bytes>{bytes(frames * n * values * eb), bytes(frames * n * 2 * 8)};
  for (const Bytes& b : inputs) {
    Result<BlockHandle> input = env_.allocator.allocate(b, Category::kActivations);
    if (!input.ok()) return input.status();
    held.push_back(*input);
  }
  const std::int64_t head_dim = v.hidden_size / v.num_attention_heads;
  // create_bidirectional_mask's bool [1, 1, n, n]; the rotary module's cos and sin.
  const Bytes encoder_tables[] = {bytes(n * n), bytes(n * head_dim * eb), bytes(n * head_dim * eb)};
  std::vector<BlockHandle> kept;  // a video's frame embeddings, or every image's features
  std::vector<BlockHandle> step;
  std::vector<BlockHandle> tables;
  for (std::int64_t i = 0; i < e.items; ++i) {
    if (video) kept.clear();
    for (std::int64_t f = 0; f < per_item; ++f) {
      step.clear();
      GPUMEM_RETURN_IF_ERROR(replay(gemma4_patch_embedding_activations(v, n, eb), &step));
      BlockHandle stream = step.front();
      tables.clear();
      for (const Bytes& b : encoder_tables) {
        Result<BlockHandle> t = env_.allocator.allocate(b, Category::kActivations);
        if (!t.ok()) return t.status();
        tables.push_back(*t);
      }
      GPUMEM_RETURN_IF_ERROR(vit_step(gemma4_attention_activations(v, n, eb), stream));
      GPUMEM_RETURN_IF_ERROR(vit_step(gemma4_mlp_activations(v, n, eb), stream));
      for (BlockHandle t : tables) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(t));
      GPUMEM_RETURN_IF_ERROR(
          vit_step(gemma4_pooler_activations(v, n, outputs, item.soft_tokens, eb), stream));
      if (video) {
        GPUMEM_RETURN_IF_ERROR(vit_step(
            gemma4_embed_vision_activations(v, item.soft_tokens, text_hidden, eb), stream));
      }
      kept.push_back(stream);
    }
    if (!video) continue;
    // torch.cat(frame_embs): the video's [frames x soft tokens, text hidden] output.
    Result<BlockHandle> out = env_.allocator.allocate(
        bytes(per_item * item.soft_tokens * text_hidden * eb), Category::kActivations);
    if (!out.ok()) return out.status();
    for (BlockHandle b : kept) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
    held.push_back(*out);
  }
  if (video) return {};
  for (size_t image = 0; image < kept.size(); ++image) {
    step.clear();
    GPUMEM_RETURN_IF_ERROR(
        replay(gemma4_embed_vision_activations(v, item.soft_tokens, text_hidden, eb), &step));
    held.push_back(step.front());
  }
  for (BlockHandle b : kept) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
  return {};
}

// vllm llava.py _process_image_input over clip.py CLIPVisionTransformer (2026 copies): the
// patch embedding as Conv2dLayer's unfold-and-linear form (kernel equal to stride: the
// unfolded patches copied, then the linear's output, held until the embeddings return), the
// class token concatenated, one image's position rows added into a new tensor; pre_layrnorm's
// output, held by the encoder's hidden_states_pool until the last layer returns; each layer
// adds its residuals into new tensors; the last layer's output, less the class token, feeds
// the projector, whose output is kept in the encoder cache.
Status ForwardPass::llava_encoder_forward(const EncoderProfile& e, std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const std::int64_t eb = element_bytes_;
  const int tp = p_.tp;
  const std::int64_t d = v.hidden_size;
  const bool next = !v.grid_pinpoints.empty();
  const LlavaNextGrid grid = next ? llava_next_dummy_grid(v) : LlavaNextGrid{};
  // LLaVA-NeXT's crops run through the tower and the projector as one batch of images.
  const std::int64_t images = e.items * (next ? grid.crops() : 1);
  const std::int64_t patches = images * v.num_patches();
  const std::int64_t positions = images * (v.num_patches() + 1);
  const Bytes stream_bytes = bytes(positions * d * eb);
  const auto allocate = [&](std::int64_t elements) {
    return env_.allocator.allocate(bytes(elements * eb), Category::kActivations);
  };
  std::vector<BlockHandle> step;
  {
    ActivationList l;
    const int unfolded = l.add("embeddings.patch_embedding.unfold",
                               patches * v.num_channels * v.patch_size * v.patch_size, eb);
    const int linear = l.add("embeddings.patch_embedding", patches * d, eb);
    l.dies_after(unfolded, linear);
    const int cat = l.add("embeddings.cat", positions * d, eb);
    const int rows = l.add("embeddings.position_embedding", (v.num_patches() + 1) * d, eb);
    const int sum = l.add("embeddings", positions * d, eb);
    l.dies_after({linear, cat, rows}, sum);
    const int normed = l.add("pre_layrnorm", positions * d, eb);
    l.dies_after(sum, normed);
    GPUMEM_RETURN_IF_ERROR(replay(l.take(), &step));
  }
  const BlockHandle pooled = step.front();
  BlockHandle stream = pooled;
  bool stream_is_pooled = true;
  for (std::int64_t layer = 0; layer < v.clip_layers_built(); ++layer) {
    step.clear();
    GPUMEM_RETURN_IF_ERROR(replay(siglip_attention_activations(v, tp, positions, eb), &step));
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(step.front(), stream_bytes, nullptr));
    Result<BlockHandle> attended = allocate(positions * d);
    if (!attended.ok()) return attended.status();
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(step.front()));
    step.clear();
    GPUMEM_RETURN_IF_ERROR(
        replay(clip_mlp_activations(v, tp, positions, eb, p_.native_quick_gelu), &step));
    if (tp > 1) GPUMEM_RETURN_IF_ERROR(all_reduce(step.front(), stream_bytes, nullptr));
    Result<BlockHandle> out = allocate(positions * d);
    if (!out.ok()) return out.status();
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(step.front()));
    GPUMEM_RETURN_IF_ERROR(env_.allocator.free(*attended));
    if (!stream_is_pooled) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
    stream = *out;
    stream_is_pooled = false;
  }
  if (!stream_is_pooled) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(pooled));
  step.clear();
  const std::int64_t selected = next ? images * v.num_patches() : e.patches();
  GPUMEM_RETURN_IF_ERROR(replay(
      llava_projector_activations(v, p_.model.hidden_size, tp, images, selected, eb), &step));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  if (!next) {
    held.push_back(step.front());
    return {};
  }
  // llava_next.py _merge_image_patch_embeddings ("spatial_unpad"), one image at a time: the
  // grid crops' features permuted into one contiguous map, an image_newline column
  // concatenated to each feature row, then the base image's features concatenated in front:
  // the image's embeddings, kept; the projector's output is freed after the last image.
  const BlockHandle projected = step.front();
  const std::int64_t text = p_.model.hidden_size;
  const std::int64_t side = v.image_size / v.patch_size;
  for (std::int64_t item = 0; item < e.items; ++item) {
    ActivationList l;
    const int map =
        l.add("other_patch_embeds.contiguous", (grid.crops() - 1) * v.num_patches() * text, eb);
    const int rows = l.add("other_patch_embeds.image_newline",
                           grid.rows * side * (grid.columns * side + 1) * text, eb);
    l.dies_after(map, rows);
    const int merged = l.add("merged_patch_embeddings", grid.tokens * text, eb);
    l.dies_after(rows, merged);
    step.clear();
    GPUMEM_RETURN_IF_ERROR(replay(l.take(), &step));
    held.push_back(step.front());
  }
  return env_.allocator.free(projected);
}

// vllm qwen3_vl.py Qwen3_VisionTransformer.forward under the profile's inference_mode: every
// block (the stream, its rotary tables and the deepstack features held across them), the
// deepstack mergers after their blocks, the final merger, then the features concatenated
// into one output per item (kept in the encoder cache). Qwen2.5-VL's and Gemma 3's towers
// run their own forwards after the same pixel values.
Status ForwardPass::encoder_forward(const EncoderProfile& e, std::vector<BlockHandle>& held) {
  const VisionTower& v = p_.model.vision;
  const std::int64_t n = e.patches();
  const std::int64_t eb = element_bytes_;
  const int tp = p_.tp;
  if (v.kind == VisionKind::kGemma4Vit) return gemma4_encoder_forward(e, held);
  // _get_mm_dummy_batch: the processor's pixel values, cast to the model dtype on the CPU
  // (InputProcessingContext._postprocess_output), batched on the GPU; profile_run keeps them
  // until the language model's dummy run is over.
  // SigLIP's pixels have no temporal patch.
  const std::int64_t patch_values = v.num_channels *
                                    std::max<std::int64_t>(1, v.temporal_patch_size) *
                                    v.patch_size * v.patch_size;
  // LLaVA's embeddings may count the class token, which has no pixels; LLaVA-NeXT's images
  // are their crops (and image_sizes, an int64 pair each, is batched beside them).
  const std::int64_t pixel_patches =
      v.kind != VisionKind::kClip ? n
      : v.grid_pinpoints.empty()  ? e.items * v.num_patches()
                                  : e.items * llava_next_dummy_grid(v).crops() * v.num_patches();
  Result<BlockHandle> pixels =
      env_.allocator.allocate(bytes(pixel_patches * patch_values * eb), Category::kActivations);
  if (!pixels.ok()) return pixels.status();
  held.push_back(*pixels);
  if (v.kind == VisionKind::kClip && !v.grid_pinpoints.empty()) {
    Result<BlockHandle> sizes =
        env_.allocator.allocate(bytes(e.items * 2 * 8), Category::kActivations);
    if (!sizes.ok()) return sizes.status();
    held.push_back(*sizes);
  }
  if (v.kind == VisionKind::kQwen2Vit) return qwen2_encoder_forward(e, held);
  if (v.kind == VisionKind::kQwen25Vit) return qwen25_encoder_forward(e, held);
  if (v.kind == VisionKind::kSiglip) return gemma3_encoder_forward(e, held);
  if (v.kind == VisionKind::kClip) return llava_encoder_forward(e, held);
  std::vector<BlockHandle> step;
  GPUMEM_RETURN_IF_ERROR(replay(vit_embedding_activations(v, n, eb), &step));
  BlockHandle stream = step.front();
  std::vector<BlockHandle> live;  // the rotary tables, then each deepstack feature
  for (int table = 0; table < 2; ++table) {
    Result<BlockHandle> t =
        env_.allocator.allocate(vit_rotary_bytes(v, n, eb), Category::kActivations);
    if (!t.ok()) return t.status();
    live.push_back(*t);
  }
  const Bytes stream_bytes = bytes(n * v.hidden_size * eb);
  const std::vector<std::int64_t>& taps = v.deepstack_visual_indexes;
  for (std::int64_t block = 0; block < v.num_hidden_layers; ++block) {
    GPUMEM_RETURN_IF_ERROR(vit_step(vit_attention_activations(v, tp, n, eb), stream));
    GPUMEM_RETURN_IF_ERROR(vit_step(vit_mlp_activations(v, tp, n, eb), stream));
    for (int reduce = 0; reduce < 2 && tp > 1; ++reduce) {
      GPUMEM_RETURN_IF_ERROR(all_reduce(stream, stream_bytes, nullptr));
    }
    if (std::find(taps.begin(), taps.end(), block) != taps.end()) {
      GPUMEM_RETURN_IF_ERROR(replay(vit_merger_activations(v, tp, n, eb), &live));
    }
  }
  step.clear();
  GPUMEM_RETURN_IF_ERROR(replay(vit_merger_activations(v, tp, n, eb), &step));
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(stream));
  // torch.cat([merged] + deepstack features, dim=1): one row per merged patch.
  const std::int64_t rows = n / (v.spatial_merge_size * v.spatial_merge_size);
  Result<BlockHandle> out = env_.allocator.allocate(
      bytes(rows * v.out_hidden_size * (1 + v.deepstack_mergers()) * eb), Category::kActivations);
  if (!out.ok()) return out.status();
  GPUMEM_RETURN_IF_ERROR(env_.allocator.free(step.front()));
  for (BlockHandle b : live) GPUMEM_RETURN_IF_ERROR(env_.allocator.free(b));
  held.push_back(*out);
  return {};
}

}  // namespace gpumem::vllm
