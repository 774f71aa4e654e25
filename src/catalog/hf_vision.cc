#include "catalog/hf_vision.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpumem {
namespace {

// Channels, patch sizes and merges are small in every published tower; bounding them keeps
// the products of up to five dimensions (a Conv3d weight) inside 64 bits for hostile input.
constexpr std::int64_t kMaxPatchDimension = 1024;

std::int64_t patch_dimension(const ConfigMap& v, const char* key, std::int64_t fallback) {
  const std::int64_t n = v.positive(key, fallback);
  if (n > kMaxPatchDimension) {
    v.error(key, "'" + std::string(key) + "' " + std::to_string(n) +
                     " is more than gpumem reads for a vision tower's channels, patches and "
                     "merges (" +
                     std::to_string(kMaxPatchDimension) + ")");
    return 0;
  }
  return n;
}

void check_heads(const ConfigMap& v, const char* heads_key, const VisionTower& t) {
  if (t.num_attention_heads > 0 && t.hidden_size % t.num_attention_heads != 0) {
    v.error(heads_key, "'hidden_size' " + std::to_string(t.hidden_size) + " is not divisible by '" +
                           heads_key + "' " + std::to_string(t.num_attention_heads));
  }
}

// A ViT's dimensions under the names SigLIP, Llama 4 and Pixtral configs share, with their
// config class's defaults; the patches per side are bounded so position tables cannot overflow.
struct VitDefaults {
  std::int64_t hidden_size;
  std::int64_t intermediate_size;
  std::int64_t num_hidden_layers;
  std::int64_t num_attention_heads;
  std::int64_t image_size;
  std::int64_t patch_size;
};

void read_vit_dimensions(const ConfigMap& v, const VitDefaults& d, VisionTower& t) {
  t.hidden_size = v.positive("hidden_size", d.hidden_size);
  t.intermediate_size = v.positive("intermediate_size", d.intermediate_size);
  t.num_hidden_layers = v.positive("num_hidden_layers", d.num_hidden_layers);
  t.num_attention_heads = v.positive("num_attention_heads", d.num_attention_heads);
  t.num_channels = patch_dimension(v, "num_channels", 3);
  t.image_size = v.positive("image_size", d.image_size);
  t.patch_size = patch_dimension(v, "patch_size", d.patch_size);
  check_heads(v, "num_attention_heads", t);
  if (t.patch_size > 0 && t.image_size / t.patch_size > kMaxPatchDimension) {
    v.error("image_size", "'image_size' " + std::to_string(t.image_size) + " makes more than " +
                              std::to_string(kMaxPatchDimension) + " patches per side");
  }
}

// Gemma 3: sglang v0.5.9 gemma3_mm.py Gemma3ForConditionalGeneration.__init__ (read at
// 017f5d4) builds SiglipVisionModel(config.vision_config) beside the language model.
void parse_siglip(const ConfigMap& top, const ConfigMap& v, VisionTower& t) {
  const std::string type = v.string("model_type").value_or("siglip_vision_model");
  if (type != "siglip_vision_model") {
    v.error("model_type", "vision tower '" + type +
                              "' is not modelled: gpumem models Gemma 3's siglip_vision_model");
    return;
  }
  // transformers models/siglip/modeling_siglip.py SiglipVisionTransformer: the attention-pooling
  // head exists unless vision_use_head is false (Gemma 3's); sglang siglip.py never builds it,
  // so a checkpoint with one would not match what the engine loads.
  if (v.boolean("vision_use_head").value_or(true)) {
    v.error("vision_use_head",
            "a SigLIP tower with its attention-pooling head ('vision_use_head' true or absent) is "
            "not modelled: SGLang's siglip.py builds no head; Gemma 3 sets it false");
  }
  // transformers models/siglip/configuration_siglip.py SiglipVisionConfig.__init__ defaults.
  t.kind = VisionKind::kSiglip;
  read_vit_dimensions(v, {768, 3072, 12, 12, 224, 16}, t);
  if (t.patch_size > 0 && t.image_size % t.patch_size != 0) {
    v.error("patch_size", "'image_size' " + std::to_string(t.image_size) +
                              " is not a multiple of 'patch_size' " + std::to_string(t.patch_size));
    return;
  }
  // transformers Gemma3Config.__init__ default; gemma3_mm.py Gemma3MultiModalProjector pools
  // the patch grid to sqrt(mm_tokens_per_image) a side with a kernel of the quotient.
  t.tokens_per_image = top.positive("mm_tokens_per_image", 256);
  const std::int64_t side = t.patch_size > 0 ? t.image_size / t.patch_size : 0;
  // The side is bounded as the patches per side are (read_vit_dimensions), so the root's
  // search stays short for any mm_tokens_per_image.
  std::int64_t tokens_side = 0;
  while (tokens_side < std::min(side, kMaxPatchDimension) &&
         (tokens_side + 1) * (tokens_side + 1) <= t.tokens_per_image) {
    ++tokens_side;
  }
  if (t.tokens_per_image > 0 && side > 0 &&
      (tokens_side * tokens_side != t.tokens_per_image || side % tokens_side != 0)) {
    top.error("mm_tokens_per_image", "'mm_tokens_per_image' " + std::to_string(t.tokens_per_image) +
                                         " is not the square of a divisor of the " +
                                         std::to_string(side) +
                                         " patches a side of the vision tower's image");
  }
}

// Qwen2-VL: transformers models/qwen2_vl/configuration_qwen2_vl.py Qwen2VLVisionConfig.__init__
// defaults. The tower's width is embed_dim and its MLP embed_dim x mlp_ratio; hidden_size is
// the merger's output, the language model's width.
void parse_qwen2_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kQwen2Vit;
  t.num_hidden_layers = v.positive("depth", 32);
  t.hidden_size = v.positive("embed_dim", 1280);
  // vllm qwen2_vl.py Qwen2VisionBlock: mlp_hidden_dim = int(dim * mlp_ratio), a float allowed.
  const double mlp_ratio = v.number("mlp_ratio").value_or(4.0);
  const double width = static_cast<double>(t.hidden_size) * mlp_ratio;
  if (!std::isfinite(mlp_ratio) || width < 1.0) {
    v.error("mlp_ratio", "'mlp_ratio' must make an MLP at least 1 wide");
  } else if (width > static_cast<double>(kMaxConfigCount)) {
    v.error("mlp_ratio", "'embed_dim' x 'mlp_ratio' is " +
                             std::to_string(static_cast<std::int64_t>(width)) + ", more than " +
                             std::to_string(kMaxConfigCount));
  } else {
    t.intermediate_size = static_cast<std::int64_t>(width);
  }
  t.num_attention_heads = v.positive("num_heads", 16);
  t.num_channels = patch_dimension(v, v.has("in_chans") ? "in_chans" : "in_channels", 3);
  t.patch_size = patch_dimension(v, "patch_size", 14);
  t.temporal_patch_size = patch_dimension(v, "temporal_patch_size", 2);
  t.spatial_merge_size = patch_dimension(v, "spatial_merge_size", 2);
  t.out_hidden_size = v.positive("hidden_size", 3584);
  if (t.num_attention_heads > 0 && t.hidden_size % t.num_attention_heads != 0) {
    v.error("num_heads", "'embed_dim' " + std::to_string(t.hidden_size) +
                             " is not divisible by 'num_heads' " +
                             std::to_string(t.num_attention_heads));
  }
}

// Qwen2.5-VL: transformers models/qwen2_5_vl/configuration_qwen2_5_vl.py
// Qwen2_5_VLVisionConfig.__init__ defaults; in_chans is the older name of in_channels.
void parse_qwen25_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kQwen25Vit;
  t.num_hidden_layers = v.positive("depth", 32);
  t.hidden_size = v.positive("hidden_size", 3584);
  t.intermediate_size = v.positive("intermediate_size", 3420);
  t.num_attention_heads = v.positive("num_heads", 16);
  t.num_channels = patch_dimension(v, v.has("in_chans") ? "in_chans" : "in_channels", 3);
  t.patch_size = patch_dimension(v, "patch_size", 14);
  t.temporal_patch_size = patch_dimension(v, "temporal_patch_size", 2);
  t.spatial_merge_size = patch_dimension(v, "spatial_merge_size", 2);
  t.out_hidden_size = v.positive("out_hidden_size", 3584);
  t.window_size = v.positive("window_size", 112);
  check_heads(v, "num_heads", t);
}

// GLM-4.1V and GLM-4.5V: transformers models/glm4v/configuration_glm4v.py Glm4vVisionConfig
// defaults (glm4v_moe's is the same). The blocks' MLP is out_hidden_size wide; intermediate_size
// is the merger's (modeling_glm4v.py Glm4vVisionModel, Glm4VisionMlp, Glm4vVisionPatchMerger).
void parse_glm4v_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kGlm4vVit;
  t.num_hidden_layers = v.positive("depth", 24);
  t.hidden_size = v.positive("hidden_size", 1536);
  t.intermediate_size = v.positive("intermediate_size", 13696);
  t.num_attention_heads = v.positive("num_heads", 12);
  t.num_channels = patch_dimension(v, "in_channels", 3);
  t.patch_size = patch_dimension(v, "patch_size", 14);
  t.image_size = patch_dimension(v, "image_size", 336);
  t.temporal_patch_size = patch_dimension(v, "temporal_patch_size", 2);
  t.spatial_merge_size = patch_dimension(v, "spatial_merge_size", 2);
  t.out_hidden_size = v.positive("out_hidden_size", 4096);
  t.qkv_bias = v.boolean("attention_bias").value_or(false);
  if (t.patch_size > 0 && t.image_size % t.patch_size != 0) {
    v.error("image_size", "'image_size' " + std::to_string(t.image_size) +
                              " is not a multiple of 'patch_size' " + std::to_string(t.patch_size));
  }
  check_heads(v, "num_heads", t);
}

// Qwen3-VL: transformers models/qwen3_vl/configuration_qwen3_vl.py Qwen3VLVisionConfig.__init__
// defaults.
// transformers models/gemma4/configuration_gemma4.py Gemma4VisionConfig (defaults: 768 wide,
// MLP 3072, 16 layers of 12 heads, patches of 16, a position table of 10240 rows per axis,
// 3 x 3 patches pooled into one soft token, at most 280 soft tokens an image).
void parse_gemma4_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kGemma4Vit;
  t.hidden_size = v.positive("hidden_size", 768);
  t.intermediate_size = v.positive("intermediate_size", 3072);
  t.num_hidden_layers = v.positive("num_hidden_layers", 16);
  t.num_attention_heads = v.positive("num_attention_heads", 12);
  t.num_channels = 3;
  t.patch_size = patch_dimension(v, "patch_size", 16);
  t.num_position_embeddings = v.positive("position_embedding_size", 10240);
  t.spatial_merge_size = patch_dimension(v, "pooling_kernel_size", 3);
  t.tokens_per_image = v.positive("default_output_length", 280);
  t.standardize = v.boolean("standardize").value_or(false);
  if (t.num_attention_heads > 0 && t.hidden_size % t.num_attention_heads != 0) {
    v.error("num_attention_heads", "'hidden_size' " + std::to_string(t.hidden_size) +
                                       " is not divisible by 'num_attention_heads' " +
                                       std::to_string(t.num_attention_heads));
  }
  // modeling_gemma4.py Gemma4ClippableLinear: clipped linears keep four bound buffers each.
  if (v.boolean("use_clipped_linears").value_or(false)) {
    v.error("use_clipped_linears",
            "Gemma 4's clipped vision linears ('use_clipped_linears') are not modelled");
  }
}

// Kimi-K2.5: the checkpoint's vision_config names MoonViT's sizes vt_* (sglang configs/kimi_k25.py
// KimiK25VisionConfig defaults: 27 layers of 1152 wide, MLP 4304, 16 heads, patches of 14, a
// 64 x 64 position table, 2 x 2 patches merged; vllm transformers_utils/configs/kimi_k25.py);
// the projector maps merge^2 x width into text_hidden_size.
void parse_moon_vit(const ConfigMap& v, std::int64_t text_hidden, VisionTower& t) {
  t.kind = VisionKind::kMoonVit;
  t.hidden_size = v.positive("vt_hidden_size", 1152);
  t.intermediate_size = v.positive("vt_intermediate_size", 4304);
  t.num_hidden_layers = v.positive("vt_num_hidden_layers", 27);
  t.num_attention_heads = v.positive("vt_num_attention_heads", 16);
  t.num_channels = 3;
  t.patch_size = patch_dimension(v, "patch_size", 14);
  t.position_rows = patch_dimension(v, "init_pos_emb_height", 64);
  t.position_columns = patch_dimension(v, "init_pos_emb_width", 64);
  t.out_hidden_size = v.positive("text_hidden_size", text_hidden);
  const std::vector<std::int64_t> merge =
      v.integers("merge_kernel_size").value_or(std::vector<std::int64_t>{2, 2});
  if (merge.size() != 2 || merge[0] != merge[1] || merge[0] < 1 || merge[0] > kMaxPatchDimension) {
    v.error("merge_kernel_size", "'merge_kernel_size' must be a square [k, k] of at most " +
                                     std::to_string(kMaxPatchDimension));
  } else {
    t.spatial_merge_size = merge[0];
  }
  // What the published checkpoint says; another value changes the tower's tensors.
  static const std::pair<const char*, const char*> kModelled[] = {
      {"pos_emb_type", "divided_fixed"}, {"mm_projector_type", "patchmerger"}};
  for (const auto& [key, value] : kModelled) {
    const std::optional<std::string> given = v.string(key);
    if (given && *given != value) {
      v.error(key, "MoonViT's '" + std::string(key) + "' '" + *given +
                       "' is not modelled (the Kimi-K2.5 checkpoint's '" + value + "' is)");
    }
  }
  check_heads(v, "vt_num_attention_heads", t);
}

void parse_qwen3_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kQwen3Vit;
  t.num_hidden_layers = v.positive("depth", 27);
  t.hidden_size = v.positive("hidden_size", 1152);
  t.intermediate_size = v.positive("intermediate_size", 4304);
  t.num_attention_heads = v.positive("num_heads", 16);
  t.num_channels = patch_dimension(v, "in_channels", 3);
  t.patch_size = patch_dimension(v, "patch_size", 16);
  t.temporal_patch_size = patch_dimension(v, "temporal_patch_size", 2);
  t.spatial_merge_size = patch_dimension(v, "spatial_merge_size", 2);
  t.out_hidden_size = v.positive("out_hidden_size", 3584);
  t.num_position_embeddings = v.positive("num_position_embeddings", 2304);
  t.deepstack_visual_indexes =
      v.integers("deepstack_visual_indexes").value_or(std::vector<std::int64_t>{8, 16, 24});
  std::sort(t.deepstack_visual_indexes.begin(), t.deepstack_visual_indexes.end());
  for (size_t i = 0; i < t.deepstack_visual_indexes.size(); ++i) {
    const std::int64_t block = t.deepstack_visual_indexes[i];
    // qwen3_vl.py Qwen3_VisionTransformer.forward taps the stream after block `block`; the
    // mergers are looked up by the index's position in the list.
    if (block < 0 || block >= t.num_hidden_layers ||
        (i > 0 && block == t.deepstack_visual_indexes[i - 1])) {
      v.error("deepstack_visual_indexes", "'deepstack_visual_indexes' entry " +
                                              std::to_string(block) +
                                              " is not a distinct block of the " +
                                              std::to_string(t.num_hidden_layers) + " ('depth')");
      break;
    }
  }
  check_heads(v, "num_heads", t);
}

// Llama 4: transformers models/llama4/configuration_llama4.py Llama4VisionConfig.__init__ defaults.
void parse_llama4_vit(const ConfigMap& v, VisionTower& t) {
  t.kind = VisionKind::kLlama4Vit;
  read_vit_dimensions(v, {768, 5632, 34, 16, 448, 14}, t);
  t.out_hidden_size = v.positive("vision_output_dim", 7680);
  t.projector_input_dim = v.positive("projector_input_dim", 4096);
  t.projector_output_dim = v.positive("projector_output_dim", 4096);
}

// Mistral 3: transformers models/pixtral/configuration_pixtral.py PixtralVisionConfig.__init__
// defaults; the projector's patch merge and bias sit at the top level (Mistral3Config: 2, false).
void parse_pixtral(const ConfigMap& top, const ConfigMap& v, VisionTower& t) {
  const std::string type = v.string("model_type").value_or("pixtral");
  if (type != "pixtral") {
    v.error("model_type", "vision tower '" + type +
                              "' is not modelled: gpumem models Mistral 3's "
                              "pixtral");
    return;
  }
  t.kind = VisionKind::kPixtral;
  read_vit_dimensions(v, {1024, 4096, 24, 16, 1024, 16}, t);
  t.spatial_merge_size = patch_dimension(top, "spatial_merge_size", 2);
  t.projector_bias = top.boolean("multimodal_projector_bias").value_or(false);
}

// LLaVA-NeXT's default grid (transformers LlavaNextConfig.__init__, image_grid_pinpoints None).
constexpr std::int64_t kLlavaNextPinpoints[] = {336, 672, 672, 336, 672, 672, 1008, 336, 336, 1008};

// image_grid_pinpoints: a list of [height, width] pairs of positive pixel counts, each
// bounded as an image side is.
std::vector<std::int64_t> read_pinpoints(const ConfigMap& top) {
  const YAML::Node list = top.get("image_grid_pinpoints");
  if (!list.IsDefined() || list.IsNull()) {
    return {std::begin(kLlavaNextPinpoints), std::end(kLlavaNextPinpoints)};
  }
  std::vector<std::int64_t> out;
  const auto bad = [&] {
    top.error("image_grid_pinpoints",
              "'image_grid_pinpoints' must be a non-empty list of [height, width] pairs of "
              "positive pixel counts up to " +
                  std::to_string(kMaxPatchDimension * kMaxPatchDimension));
    return std::vector<std::int64_t>{};
  };
  if (!list.IsSequence() || list.size() == 0) return bad();
  for (const YAML::Node& pair : list) {
    if (!pair.IsSequence() || pair.size() != 2) return bad();
    for (const YAML::Node& side : pair) {
      std::int64_t n = 0;
      if (!side.IsScalar() || !YAML::convert<std::int64_t>::decode(side, n) || n <= 0 ||
          n > kMaxPatchDimension * kMaxPatchDimension) {
        return bad();
      }
      out.push_back(n);
    }
  }
  return out;
}

// LLaVA and LLaVA-NeXT: a CLIP ViT (transformers models/clip/configuration_clip.py
// CLIPVisionConfig.__init__ defaults, which a vision_config given as a mapping keeps) and the
// wrapper's projector fields (LlavaConfig.__init__: vision_feature_layer -2, strategy
// "default", multimodal_projector_bias true).
void parse_clip(const ConfigMap& top, const ConfigMap& v, bool next, VisionTower& t) {
  const std::string type = v.string("model_type").value_or("clip_vision_model");
  if (type != "clip_vision_model") {
    v.error("model_type",
            "vision tower '" + type + "' is not modelled: gpumem models LLaVA's clip_vision_model");
    return;
  }
  t.kind = VisionKind::kClip;
  read_vit_dimensions(v, {768, 3072, 12, 12, 224, 32}, t);
  // vllm clip.py CLIPMLP: get_act_fn(hidden_act); the encoder profile models QuickGELU's
  // tensors (CLIPVisionConfig's default, every LLaVA checkpoint's).
  const std::string act = v.string("hidden_act").value_or("quick_gelu");
  if (act != "quick_gelu") {
    v.error("hidden_act", "a CLIP tower with hidden_act '" + act +
                              "' is not modelled: gpumem models quick_gelu (LLaVA's)");
  }
  if (t.patch_size > 0 && t.image_size % t.patch_size != 0) {
    v.error("patch_size", "'image_size' " + std::to_string(t.image_size) +
                              " is not a multiple of 'patch_size' " + std::to_string(t.patch_size));
  }
  const YAML::Node layers = top.get("vision_feature_layer");
  if (layers.IsSequence()) {
    t.feature_layers = top.integers("vision_feature_layer").value_or(std::vector<std::int64_t>{});
  } else {
    t.feature_layers = {top.integer("vision_feature_layer").value_or(-2)};
  }
  for (const std::int64_t index : t.feature_layers) {
    if (index < -t.num_hidden_layers || index > t.num_hidden_layers) {
      top.error("vision_feature_layer",
                "'vision_feature_layer' " + std::to_string(index) + " is not a layer of the " +
                    std::to_string(t.num_hidden_layers) + " in 'vision_config'");
    }
  }
  if (layers.IsSequence() && t.feature_layers.empty()) {
    top.error("vision_feature_layer", "'vision_feature_layer' is an empty list");
  }
  if (!next && t.feature_layers.size() > 1) {
    // vllm llava.py LlavaForConditionalGeneration sizes its projector for one layer's features
    // (transformers concatenates the listed layers): the checkpoint would not load.
    top.error("vision_feature_layer",
              "a list of feature layers under LlavaForConditionalGeneration is not modelled: "
              "vLLM's llava.py projects one layer's features");
  }
  const std::string strategy = top.string("vision_feature_select_strategy").value_or("default");
  if (strategy != "default" && strategy != "full") {
    top.error("vision_feature_select_strategy",
              "'vision_feature_select_strategy' must be \"default\" or \"full\", got \"" +
                  strategy + "\"");
  }
  t.keep_class_token = strategy == "full";
  t.projector_bias = top.boolean("multimodal_projector_bias").value_or(true);
  // LlavaMultiModalProjector: get_act_fn(projector_hidden_act) between its linears, modelled
  // as one out-of-place tensor (nn.GELU's; every LLaVA checkpoint says gelu).
  const std::string projector_act = top.string("projector_hidden_act").value_or("gelu");
  if (projector_act != "gelu") {
    top.error("projector_hidden_act", "a LLaVA projector with projector_hidden_act '" +
                                          projector_act + "' is not modelled: gpumem models gelu");
  }
  if (!next) return;
  if (t.keep_class_token) {
    // vllm llava_next.py _merge_image_patch_embeddings: "The number of patches is not
    // consistent with the image size."
    top.error("vision_feature_select_strategy",
              "LLaVA-NeXT with vision_feature_select_strategy \"full\" is not modelled: vLLM's "
              "llava_next.py merges grids of num_patches features and raises on the class token");
  }
  t.grid_pinpoints = read_pinpoints(top);
  for (const std::int64_t side : t.grid_pinpoints) {
    if (t.image_size > 0 && side % t.image_size != 0) {
      top.error("image_grid_pinpoints",
                "an 'image_grid_pinpoints' side of " + std::to_string(side) +
                    " is not a multiple of the vision tower's image_size " +
                    std::to_string(t.image_size) + ": gpumem models grids of whole crops");
      break;
    }
  }
}

}  // namespace

void parse_vision_tower(const ConfigMap& top, Architecture& a) {
  const bool gemma = a.hf_architecture == "Gemma3ForConditionalGeneration";
  const bool qwen2 = a.hf_architecture == "Qwen2VLForConditionalGeneration";
  const bool qwen25 = a.hf_architecture == "Qwen2_5_VLForConditionalGeneration";
  const bool qwen3 = a.hf_architecture == "Qwen3VLForConditionalGeneration" ||
                     a.hf_architecture == "Qwen3VLMoeForConditionalGeneration" ||
                     a.hf_architecture == "Qwen3_5ForConditionalGeneration" ||
                     a.hf_architecture == "Qwen3_5MoeForConditionalGeneration";
  const bool qwen = qwen2 || qwen25 || qwen3;
  const bool llama4 = a.hf_architecture == "Llama4ForConditionalGeneration";
  const bool mistral3 = a.hf_architecture == "Mistral3ForConditionalGeneration";
  const bool llava_next = a.hf_architecture == "LlavaNextForConditionalGeneration";
  const bool llava = llava_next || a.hf_architecture == "LlavaForConditionalGeneration";
  const bool gemma4 = a.hf_architecture == "Gemma4ForConditionalGeneration";
  const bool kimi = a.hf_architecture == "KimiK25ForConditionalGeneration";
  const bool glm4v = a.hf_architecture == "Glm4vForConditionalGeneration" ||
                     a.hf_architecture == "Glm4vMoeForConditionalGeneration";
  if (!gemma && !qwen && !llama4 && !mistral3 && !llava && !gemma4 && !kimi && !glm4v) return;
  const YAML::Node node = top.get("vision_config");
  if (!node.IsDefined()) {
    top.error("architectures", "a " + a.hf_architecture +
                                   " config needs 'vision_config' (its vision tower), which the "
                                   "engines build beside the language model");
    return;
  }
  ConfigMap v(top.file(), node, "'vision_config'", top.diags());
  if (!v.valid()) return;
  if (gemma) {
    parse_siglip(top, v, a.vision);
  } else if (gemma4) {
    parse_gemma4_vit(v, a.vision);
  } else if (kimi) {
    parse_moon_vit(v, a.hidden_size, a.vision);
  } else if (glm4v) {
    parse_glm4v_vit(v, a.vision);
  } else if (llama4) {
    parse_llama4_vit(v, a.vision);
  } else if (mistral3) {
    parse_pixtral(top, v, a.vision);
  } else if (llava) {
    parse_clip(top, v, llava_next, a.vision);
  } else if (qwen2) {
    parse_qwen2_vit(v, a.vision);
  } else if (qwen25) {
    parse_qwen25_vit(v, a.vision);
  } else {
    parse_qwen3_vit(v, a.vision);
  }
  if ((qwen || glm4v) && a.vision.out_hidden_size != a.hidden_size && a.hidden_size > 0) {
    const std::string key = qwen2 ? "hidden_size" : "out_hidden_size";
    v.error(key, "'" + key + "' " + std::to_string(a.vision.out_hidden_size) +
                     " differs from the language model's 'hidden_size' " +
                     std::to_string(a.hidden_size));
  }
}

}  // namespace gpumem
