#include "catalog/hf_decilm.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

// vllm and sglang nemotron_nas.py _ffn_mult_to_intermediate_size: int(2 * ffn_mult * hidden /
// 3) in Python floats, then _find_multiple rounds it up to a multiple of 256.
std::int64_t ffn_width(double ffn_mult, std::int64_t hidden) {
  const auto n = static_cast<std::int64_t>(2.0 * ffn_mult * static_cast<double>(hidden) / 3.0);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

// Neither engine's nemotron_nas.py builds HF's linear replacement of a block (it tests no_op
// only and would compute its shape from a null n_heads_in_group or ffn_mult).
bool refuses_linear_replacement(const ConfigMap& block) {
  if (!block.boolean("replace_with_linear").value_or(false)) return false;
  block.error("replace_with_linear",
              "'replace_with_linear' true is not served: neither SGLang's nor vLLM's "
              "nemotron_nas.py builds a block replaced by a linear layer");
  return true;
}

}  // namespace

void parse_decilm(const ConfigMap& text, Architecture& a) {
  const YAML::Node blocks = text.get("block_configs");
  if (!blocks.IsDefined()) {
    text.missing("block_configs");
    return;
  }
  if (!blocks.IsSequence() || static_cast<std::int64_t>(blocks.size()) != a.num_hidden_layers) {
    text.error("block_configs", "'block_configs' must be a list of one entry per layer (" +
                                    str(a.num_hidden_layers) + ")");
    return;
  }
  a.layer_types.assign(static_cast<size_t>(a.num_hidden_layers), LayerAttention::kFull);
  a.layer_intermediate_sizes.assign(static_cast<size_t>(a.num_hidden_layers), 0);
  std::optional<std::int64_t> kv_heads;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ConfigMap block(text.file(), blocks[i], "'block_configs' entry", text.diags());
    const ConfigMap attention(text.file(), block.get("attention"),
                              "'attention' of a 'block_configs' entry", text.diags());
    const ConfigMap ffn(text.file(), block.get("ffn"), "'ffn' of a 'block_configs' entry",
                        text.diags());
    if (!block.valid() || !attention.valid() || !ffn.valid()) return;
    if (attention.boolean("no_op").value_or(false)) {
      a.layer_types[i] = LayerAttention::kNone;
    } else if (!refuses_linear_replacement(attention)) {
      // vllm and sglang nemotron_nas.py DeciLMDecoderLayer: num_kv_heads = heads //
      // n_heads_in_group.
      const std::int64_t group = attention.positive("n_heads_in_group");
      if (group <= 0) return;
      if (a.num_attention_heads % group != 0) {
        attention.error("n_heads_in_group", "'num_attention_heads' " + str(a.num_attention_heads) +
                                                " is not a multiple of 'n_heads_in_group' " +
                                                str(group));
        return;
      }
      const std::int64_t heads = a.num_attention_heads / group;
      // sglang configs/model_config.py get_total_num_kv_heads refuses layers of different KV
      // head counts; vLLM would cache them as KV groups of different pages, which gpumem does
      // not model either.
      if (kv_heads && *kv_heads != heads) {
        attention.error("n_heads_in_group",
                        "ValueError: Variable GQA (VGQA) is not yet supported for nemotron-nas "
                        "in sglang (layer " +
                            str(static_cast<std::int64_t>(i)) + " has " + str(heads) +
                            " KV heads, an earlier one " + str(*kv_heads) +
                            "); gpumem does not model it in vLLM either");
        return;
      }
      kv_heads = heads;
    }
    if (ffn.boolean("no_op").value_or(false)) continue;
    if (refuses_linear_replacement(ffn)) continue;
    // vLLM's nemotron_nas.py also reads an ffn intermediate_size; SGLang's does not.
    if (ffn.has("intermediate_size")) {
      ffn.error("intermediate_size",
                "an 'intermediate_size' in block_configs is not modelled: vLLM's "
                "nemotron_nas.py takes it, SGLang's computes the width from ffn_mult");
      continue;
    }
    const std::optional<double> mult = ffn.number("ffn_mult");
    if (!mult) {
      ffn.missing("ffn_mult");
      continue;
    }
    if (!(*mult > 0.0 && *mult < 1024.0)) {
      ffn.error("ffn_mult",
                "'ffn_mult' must be above 0 and below 1024, got " + fmt::format("{}", *mult));
      continue;
    }
    const std::int64_t width = ffn_width(*mult, a.hidden_size);
    if (width > kMaxConfigCount) {
      ffn.error("ffn_mult", "'ffn_mult' " + fmt::format("{}", *mult) + " gives an MLP width of " +
                                str(width) + ", above " + str(kMaxConfigCount) + " (2^26)");
      continue;
    }
    a.layer_intermediate_sizes[i] = width;
  }
  if (!kv_heads) {
    text.error("block_configs", "no layer of 'block_configs' attends: nothing to serve");
    return;
  }
  a.num_key_value_heads = *kv_heads;
  a.intermediate_size =
      *std::max_element(a.layer_intermediate_sizes.begin(), a.layer_intermediate_sizes.end());
}

}  // namespace gpumem
