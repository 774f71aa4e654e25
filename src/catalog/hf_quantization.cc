#include "catalog/hf_quantization.h"

#include <string>
#include <vector>

#include "core/spelling.h"

namespace gpumem {

namespace {

void read_module_patterns(const ConfigMap& m, std::string_view key, ModulePatternSet& out) {
  const YAML::Node n = m.get(key);
  std::optional<std::vector<std::string>> texts = m.strings(key);
  if (!texts) return;
  size_t i = 0;
  for (std::string& text : *texts) {
    Result<ModulePattern> p = ModulePattern::parse(std::move(text));
    if (p.ok()) {
      out.add(std::move(*p));
    } else {
      m.diags().error(location(m.file(), n[i]), p.status().message());
    }
    ++i;
  }
}

// NVFP4's scale group: 16 input columns, the only size the FP4 kernels take.
std::int64_t read_nvfp4_group_size(const ConfigMap& m, std::string_view key) {
  const std::int64_t g = m.integer(key).value_or(16);
  if (g != 16) {
    m.error(key, "NVFP4 group size " + std::to_string(g) + " is not modelled; gpumem models 16");
  }
  return 16;
}

// compressed-tensors naive_quantized.py NaiveQuantizationCompressor: 8-bit weights as they
// are, a scale per output row (strategy channel) or per tensor, activations quantized per
// token at run time (dynamic) or with a stored input scale; vllm compressed_tensors.py
// _get_scheme_from_parts reads such a group as W8A8 Int8 or Fp8.
void parse_compressed_w8a8(const std::string& file, const ConfigMap& w, const YAML::Node& group,
                           Quantization& q) {
  q.method = QuantMethod::kCompressedTensorsW8a8;
  q.num_bits = w.positive("num_bits");
  if (q.num_bits != 8 && q.num_bits != 0) {
    w.error("num_bits", "compressed-tensors " + std::to_string(q.num_bits) +
                            "-bit weights in a quantized (unpacked) format are not modelled; "
                            "gpumem models 8 bits");
  }
  const std::string type = w.string("type").value_or("int");
  q.float_weights = type == "float";
  if (type != "int" && type != "float") {
    w.error("type", "compressed-tensors weights of type '" + type +
                        "' are not modelled; gpumem models int and float");
  }
  const std::string strategy = w.string("strategy").value_or("channel");
  q.per_tensor_scale = strategy == "tensor";
  if (strategy != "channel" && strategy != "tensor") {
    w.error("strategy", "compressed-tensors 8-bit strategy '" + strategy +
                            "' is not modelled; gpumem models channel and tensor");
  }
  if (!w.boolean("symmetric").value_or(true)) {
    w.error("symmetric", "asymmetric 8-bit weights are not modelled");
  }
  ConfigMap g(file, group, "'config_groups' entry", w.diags());
  const YAML::Node input = group["input_activations"];
  if (!input.IsDefined() || input.IsNull()) {
    g.error("weights",
            "compressed-tensors 8-bit weights without input_activations (W8A16) are not "
            "modelled");
    return;
  }
  ConfigMap a(file, input, "'input_activations'", w.diags());
  if (!a.valid()) return;
  q.activation_scales = !a.boolean("dynamic").value_or(true);
  if (!a.boolean("symmetric").value_or(true)) {
    a.error("symmetric", "asymmetric 8-bit activations (input zero points) are not modelled");
  }
}

void parse_compressed_tensors(const ConfigMap& m, Quantization& q) {
  std::optional<std::string> format = m.string("format");
  if (!format) {
    if (!m.has("format")) m.missing("format");
    return;
  }
  const bool nvfp4 = *format == "nvfp4-pack-quantized";
  const bool w8a8 =
      *format == "int-quantized" || *format == "float-quantized" || *format == "naive-quantized";
  if (*format != "pack-quantized" && !nvfp4 && !w8a8) {
    m.error("format", "compressed-tensors format '" + *format +
                          "' is not modelled; gpumem models pack-quantized, "
                          "nvfp4-pack-quantized, int-quantized, float-quantized and "
                          "naive-quantized");
    return;
  }
  const YAML::Node groups = m.get("config_groups");
  if (!groups.IsDefined()) {
    m.missing("config_groups");
    return;
  }
  ConfigMap group_map(m.file(), groups, "'config_groups'", m.diags());
  if (!group_map.valid()) return;
  if (groups.size() != 1) {
    m.error("config_groups",
            "'config_groups' must hold exactly one group, got " + std::to_string(groups.size()));
    return;
  }
  const YAML::Node group = groups.begin()->second;
  ConfigMap g(m.file(), group, "'" + groups.begin()->first.Scalar() + "'", m.diags());
  if (!g.valid()) return;
  std::optional<std::vector<std::string>> targets = g.strings("targets");
  if (!targets || std::find(targets->begin(), targets->end(), "Linear") == targets->end()) {
    g.error("targets", "compressed-tensors config groups must target 'Linear'");
    return;
  }
  const YAML::Node weights = g.get("weights");
  if (!weights.IsDefined()) {
    g.missing("weights");
    return;
  }
  ConfigMap w(m.file(), weights, "'weights'", m.diags());
  if (!w.valid()) return;
  q.kv_cache_fp8 = m.has("kv_cache_scheme");
  read_module_patterns(m, "ignore", q.not_converted);
  if (nvfp4) {
    // compressed-tensors fp4_quantized.py NVFP4PackedCompressor: 4-bit floats, a scale per
    // 16 input columns (strategy tensor_group) and a global scale; input_activations make
    // it W4A4 (vllm compressed_tensors_w4a4_nvfp4.py), their absence W4A16.
    q.method = QuantMethod::kCompressedTensorsNvfp4;
    if (w.integer("num_bits").value_or(4) != 4 || w.string("type").value_or("float") != "float") {
      w.error("num_bits", "nvfp4-pack-quantized weights must be 4-bit floats");
    }
    q.group_size = read_nvfp4_group_size(w, "group_size");
    q.activation_scales = g.has("input_activations") && !g.get("input_activations").IsNull();
    return;
  }
  if (w8a8) {
    parse_compressed_w8a8(m.file(), w, group, q);
    return;
  }
  q.method = QuantMethod::kCompressedTensorsWna16;
  q.num_bits = w.positive("num_bits");
  if (w.string("type").value_or("int") != "int") {
    w.error("type", "compressed-tensors weights of type '" + *w.string("type") +
                        "' are not modelled; gpumem models int");
  }
  const std::string strategy = w.string("strategy").value_or("group");
  if (strategy == "group") {
    q.group_size = w.positive("group_size");
  } else if (strategy != "channel") {
    w.error("strategy", "compressed-tensors strategy '" + strategy +
                            "' is not modelled; gpumem models group and channel");
  }
  q.kv_cache_fp8 = m.has("kv_cache_scheme");
  read_module_patterns(m, "ignore", q.not_converted);
}

// The group size, where -1 means one scale per output channel (0 here).
std::int64_t group_size_of(const ConfigMap& m, std::string_view key) {
  std::optional<std::int64_t> g = m.integer(key);
  if (!g) {
    if (!m.has(key)) m.missing(key);
    return 0;
  }
  if (*g == -1) return 0;
  if (*g <= 0)
    m.error(key, ConfigMap::quoted(key) + " must be positive or -1, got " + std::to_string(*g));
  return *g > 0 ? *g : 0;
}

// sglang v0.5.9 layers/quantization/awq.py AWQMarlinConfig.from_config and
// is_awq_marlin_compatible: 4 or 8 bits, a group of -1, 32, 64 or 128, zero points; on CUDA
// such a checkpoint runs as awq_marlin (vLLM's awq_marlin.py alike).
void parse_awq(const ConfigMap& m, Quantization& q) {
  q.method = QuantMethod::kAwq;
  const char* bits_key = m.has("w_bit") ? "w_bit" : "bits";
  q.num_bits = m.positive(bits_key);
  q.group_size = group_size_of(m, m.has("q_group_size") ? "q_group_size" : "group_size");
  const bool zero_point = m.boolean("zero_point").value_or(false);
  if (!m.has("zero_point")) m.missing("zero_point");
  const std::string version = m.string("version").value_or("gemm");
  if (version != "gemm" && version != "GEMM") {
    m.error("version", "AWQ version '" + version + "' is not modelled; gpumem models gemm");
  }
  if (q.num_bits != 4 && q.num_bits != 8 && q.num_bits != 0) {
    m.error(bits_key, "AWQ with " + std::to_string(q.num_bits) +
                          " bits does not run as awq_marlin; gpumem models 4 and 8 bits");
  }
  if (q.group_size != 0 && q.group_size != 32 && q.group_size != 64 && q.group_size != 128) {
    m.error("group_size", "AWQ group size " + std::to_string(q.group_size) +
                              " does not run as awq_marlin; gpumem models -1, 32, 64 and 128");
  }
  if (m.has("zero_point") && !zero_point) {
    m.error("zero_point", "AWQ without zero points does not run as awq_marlin and is not modelled");
  }
  // awq.py is_layer_skipped_awq: a module is kept when a listed name occurs anywhere in its
  // prefix, which a `*name*` glob says.
  if (std::optional<std::vector<std::string>> names = m.strings("modules_to_not_convert")) {
    for (const std::string& name : *names) {
      Result<ModulePattern> p = ModulePattern::parse("*" + name + "*");
      if (p.ok()) q.not_converted.add(std::move(*p));
    }
  }
}

// sglang v0.5.9 layers/quantization/gptq.py GPTQMarlinConfig.is_gptq_marlin_compatible: 4 or
// 8 bits, a group of -1, 32, 64 or 128, symmetric; on CUDA it runs as gptq_marlin.
void parse_gptq(const ConfigMap& m, Quantization& q) {
  q.method = QuantMethod::kGptq;
  q.num_bits = m.positive("bits");
  q.group_size = group_size_of(m, "group_size");
  q.desc_act = m.boolean("desc_act").value_or(false);
  if (q.num_bits != 4 && q.num_bits != 8 && q.num_bits != 0) {
    m.error("bits", "GPTQ with " + std::to_string(q.num_bits) +
                        " bits does not run as gptq_marlin; gpumem models 4 and 8 bits");
  }
  if (q.group_size != 0 && q.group_size != 32 && q.group_size != 64 && q.group_size != 128) {
    m.error("group_size", "GPTQ group size " + std::to_string(q.group_size) +
                              " does not run as gptq_marlin; gpumem models -1, 32, 64 and 128");
  }
  if (!m.boolean("sym").value_or(true)) {
    m.error("sym", "asymmetric GPTQ does not run as gptq_marlin and is not modelled");
  }
  if (m.has("dynamic")) {
    m.error("dynamic", "GPTQ 'dynamic' per-module overrides are not modelled");
  }
  // gpumem models the v1 layout that gptq_marlin repacks; GPTQModel's gptq_v2 (zero points
  // stored without the -1 offset) takes other load paths, which are not read yet.
  if (m.string("checkpoint_format").value_or("gptq") != "gptq") {
    m.error("checkpoint_format", "GPTQ checkpoint_format '" + *m.string("checkpoint_format") +
                                     "' is not modelled; gpumem models gptq");
  }
  if (m.boolean("lm_head").value_or(false)) {
    m.error("lm_head", "GPTQ with a quantized lm_head is not modelled");
  }
  if (m.has("modules_in_block_to_quantize")) {
    m.error("modules_in_block_to_quantize",
            "GPTQ 'modules_in_block_to_quantize' (modules left unquantized) is not modelled");
  }
}

// Intel AutoRound (quant_method auto-round): symmetric integer weights exported in GPTQ's
// layout; vllm quantization/auto_round.py AutoRoundConfig.apply_gptq_quant_layer and sglang's
// auto_round.py alike load them as gptq_marlin without activation order.
void parse_auto_round(const ConfigMap& m, Quantization& q) {
  const std::string packing = m.string("packing_format").value_or("auto_round:auto_gptq");
  if (packing != "auto_round:auto_gptq") {
    m.error("packing_format", "AutoRound packing_format '" + packing +
                                  "' is not modelled; gpumem models auto_round:auto_gptq");
    return;
  }
  if (m.string("data_type").value_or("int") != "int") {
    m.error("data_type", "AutoRound data_type '" + *m.string("data_type") +
                             "' is not modelled; gpumem models int");
    return;
  }
  q.method = QuantMethod::kGptq;
  q.auto_round = true;
  q.num_bits = m.positive("bits");
  q.group_size = group_size_of(m, "group_size");
  if (q.num_bits != 4 && q.num_bits != 8 && q.num_bits != 0) {
    m.error("bits", "AutoRound with " + std::to_string(q.num_bits) +
                        " bits does not run as gptq_marlin; gpumem models 4 and 8 bits");
  }
  if (!m.boolean("sym").value_or(true)) {
    m.error("sym", "asymmetric AutoRound does not run as gptq_marlin and is not modelled");
  }
  // auto_round.py get_layer_config: only the blocks named are quantized (a comma-separated
  // string or a list); embeddings, lm_head, vision towers and MTP lie outside them.
  for (const char* key : {"block_name_to_quantize", "to_quant_block_names"}) {
    if (!m.has(key)) continue;
    std::vector<std::string> blocks;
    if (m.get(key).IsScalar()) {
      const std::string joined = m.string(key).value_or("");
      std::string_view rest = joined;
      while (!rest.empty()) {
        const size_t comma = rest.find(',');
        blocks.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      }
    } else {
      blocks = m.strings(key).value_or(std::vector<std::string>{});
    }
    for (std::string& block : blocks) {
      Result<ModulePattern> p = ModulePattern::parse(std::move(block));
      if (p.ok()) q.only_converted.add(std::move(*p));
    }
  }
  // ... extra_config[name]: bits of 16 or more keep that module unquantized; other bit
  // widths would mix kernels, which gpumem does not model. sglang's auto_round.py also takes
  // the names as regular expressions (re.fullmatch).
  const YAML::Node extra = m.get("extra_config");
  if (!extra.IsDefined()) return;
  ConfigMap layers(m.file(), extra, "'extra_config'", m.diags());
  if (!layers.valid()) return;
  for (const auto& entry : extra) {
    const std::string name = entry.first.Scalar();
    ConfigMap layer(m.file(), entry.second, "'" + name + "'", m.diags());
    if (!layer.valid()) continue;
    const std::int64_t bits = layer.integer("bits").value_or(q.num_bits);
    if (bits < 16 && bits != q.num_bits) {
      layer.error("bits", "AutoRound layers of " + std::to_string(bits) + " bits beside " +
                              std::to_string(q.num_bits) + "-bit ones are not modelled");
      continue;
    }
    if (bits < 16) continue;
    const bool regex = name.find_first_of("*()[]\\^$+?|") != std::string::npos;
    Result<ModulePattern> p = ModulePattern::parse(regex ? "re:(?:" + name + ")$" : name);
    if (p.ok()) {
      q.not_converted.add(std::move(*p));
    } else {
      m.diags().error(location(m.file(), entry.first), p.status().message());
    }
  }
}

}  // namespace

void parse_modelopt(const ConfigMap& m, Quantization& q) {
  std::optional<std::string> algo = m.string("quant_algo");
  if (!algo) {
    if (!m.has("quant_algo")) m.missing("quant_algo");
    return;
  }
  // sglang v0.5.9 layers/quantization/modelopt_quant.py ModelOptFp8Config.from_config
  if (*algo == "FP8") {
    q.method = QuantMethod::kModelOptFp8;
  } else if (*algo == "FP8_PER_CHANNEL_PER_TOKEN") {
    q.method = QuantMethod::kModelOptFp8PerChannel;
  } else if (*algo == "NVFP4") {
    // vllm modelopt.py ModelOptNvFp4Config._from_config: weights and activations in E2M1
    // with an e4m3 scale per group_size (16) input columns.
    q.method = QuantMethod::kModelOptNvfp4;
    q.activation_scales = true;
    q.group_size = read_nvfp4_group_size(m, "group_size");
    if (m.boolean("nvfp4_embed").value_or(false)) {
      // vllm modelopt.py ModelOptNvFp4Config: the opt-in NVFP4 embedding.
      m.error("nvfp4_embed", "an NVFP4 embedding (nvfp4_embed) is not modelled");
    }
  } else {
    m.error("quant_algo", "ModelOpt quant_algo '" + *algo +
                              "' is not modelled; gpumem models FP8, "
                              "FP8_PER_CHANNEL_PER_TOKEN and NVFP4");
    return;
  }
  // vllm modelopt.py ModelOptQuantConfigBase.from_config: hf_quant_config.json names the KV
  // dtype and the kept modules kv_cache_quant_algo and exclude_modules; the flattened
  // config.json form names them kv_cache_scheme and ignore.
  q.kv_cache_fp8 =
      m.string("kv_cache_quant_algo").value_or("") == "FP8" || m.has("kv_cache_scheme");
  read_module_patterns(m, "exclude_modules", q.not_converted);
  read_module_patterns(m, "ignore", q.not_converted);
}

// vllm quantization/fp8.py Fp8Config.from_config (and sglang's alike): without
// weight_block_size every linear has one float32 weight scale and, under activation_scheme
// static, one input scale (AutoFP8 checkpoints); the layers left in the model dtype are
// ignored_layers (modules_to_not_convert in newer exports).
void parse_fp8_per_tensor(const ConfigMap& m, Quantization& q) {
  q.method = QuantMethod::kFp8PerTensor;
  q.float_weights = true;
  q.per_tensor_scale = true;
  const std::string scheme = m.string("activation_scheme").value_or("dynamic");
  if (scheme != "static" && scheme != "dynamic") {
    m.error("activation_scheme",
            "activation_scheme '" + scheme + "' is not modelled; gpumem models static and dynamic");
  }
  q.activation_scales = scheme == "static";
  for (const char* key : {"ignored_layers", "modules_to_not_convert"}) {
    if (m.has(key) && !m.is_null(key)) read_module_patterns(m, key, q.not_converted);
  }
}

// vllm quantization/bitsandbytes.py is_layer_skipped_bnb (sglang's copy alike): a module is
// skipped when a listed name equals one of its dotted components or one of its dotted
// prefixes. A listed name with dots is a prefix (ModulePattern's own rule); one without dots
// is a component anywhere, written here as the equivalent anchored expression.
void read_bnb_skip_modules(const ConfigMap& m, Quantization& q) {
  const YAML::Node n = m.get("llm_int8_skip_modules");
  std::optional<std::vector<std::string>> names = m.strings("llm_int8_skip_modules");
  if (!names) return;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    std::string text = name;
    if (name.find('.') == std::string::npos) {
      std::string escaped;
      for (char c : name) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
          escaped += '\\';
        }
        escaped += c;
      }
      text = "re:(?:.*\\.)?" + escaped + "(?:\\.|$)";
    }
    Result<ModulePattern> p = ModulePattern::parse(std::move(text));
    if (p.ok()) {
      q.not_converted.add(std::move(*p));
    } else {
      m.diags().error(location(m.file(), n[i]), p.status().message());
    }
  }
}

// vllm quantization/fbgemm_fp8.py FBGEMMFp8Config.from_config (sglang fpgemm_fp8.py alike): both
// keys are required (get_from_keys raises without them); a null module list keeps none. The
// weights are e4m3 with a float32 scale per output row, the activations quantized per token at
// run time under activation_scale_ub.
void parse_fbgemm_fp8(const ConfigMap& m, Quantization& q) {
  for (const char* key : {"modules_to_not_convert", "activation_scale_ub"}) {
    if (!m.has(key) && !m.is_null(key)) {
      m.error("quant_method", std::string("Cannot find any of ['") + key +
                                  "'] in the model's quantization config.");
      return;
    }
  }
  if (!m.is_null("modules_to_not_convert")) {
    read_module_patterns(m, "modules_to_not_convert", q.not_converted);
  }
  q.method = QuantMethod::kFbgemmFp8;
  q.float_weights = true;
}

// vllm quantization/bitsandbytes.py BitsAndBytesConfig.from_config (sglang's copy alike):
// load_in_4bit (the default) keeps nf4 or fp4 pairs in a uint8 column and one absmax per 64
// weights, nested (double quant) or float32; quant_type changes no byte.
void parse_bitsandbytes(const ConfigMap& m, Quantization& q) {
  if (m.boolean("load_in_8bit").value_or(false)) {
    // ... LLM.int8: an int8 weight and a float32 SCB per row, which the first forward moves
    // to the GPU; vLLM forces eager mode for it (config/model.py _verify_bnb_config).
    m.error("load_in_8bit", "pre-quantized 8-bit bitsandbytes (LLM.int8) is not modelled");
    return;
  }
  if (!m.boolean("load_in_4bit").value_or(true)) {
    m.error("load_in_4bit",
            "bitsandbytes with neither load_in_4bit nor load_in_8bit is not a "
            "quantized checkpoint");
    return;
  }
  const std::string storage = m.string("bnb_4bit_quant_storage").value_or("uint8");
  if (storage != "uint8") {
    m.error("bnb_4bit_quant_storage", "ValueError: Unsupported bnb_4bit_quant_storage: " + storage);
  }
  const std::string type = m.string("bnb_4bit_quant_type").value_or("fp4");
  if (type != "nf4" && type != "fp4") {
    m.error("bnb_4bit_quant_type",
            "bnb_4bit_quant_type '" + type + "' is not a bitsandbytes 4-bit type (nf4, fp4)");
  }
  q.method = QuantMethod::kBitsAndBytes4;
  q.num_bits = 4;
  q.group_size = 64;  // the blocksize every transformers and vLLM path uses
  q.double_quant = m.boolean("bnb_4bit_use_double_quant").value_or(false);
  read_bnb_skip_modules(m, q);
}

void parse_quantization(const ConfigMap& m, Quantization& q) {
  std::optional<std::string> method = m.string("quant_method");
  if (!method) {
    if (!m.has("quant_method")) m.missing("quant_method");
    return;
  }
  if (*method == "fp8") {
    if (!m.has("weight_block_size") || m.is_null("weight_block_size")) {
      parse_fp8_per_tensor(m, q);
      return;
    }
    std::optional<std::vector<std::int64_t>> block = m.integers("weight_block_size");
    if (!block) return;
    if (block->size() != 2 || (*block)[0] <= 0 || (*block)[1] <= 0) {
      m.error("weight_block_size", "'weight_block_size' must be two positive integers");
      return;
    }
    q.method = QuantMethod::kFp8Block;
    q.block_n = (*block)[0];
    q.block_k = (*block)[1];
    read_module_patterns(m, "modules_to_not_convert", q.not_converted);
  } else if (*method == "modelopt") {
    const YAML::Node inner = m.get("quantization");
    if (inner.IsDefined()) {
      ConfigMap nested(m.file(), inner, "'quantization'", m.diags());
      if (nested.valid()) parse_modelopt(nested, q);
    } else {
      parse_modelopt(m, q);
    }
  } else if (*method == "compressed-tensors") {
    parse_compressed_tensors(m, q);
  } else if (*method == "mxfp4") {
    q.method = QuantMethod::kMxfp4;
    read_module_patterns(m, "modules_to_not_convert", q.not_converted);
  } else if (*method == "awq") {
    parse_awq(m, q);
  } else if (*method == "gptq") {
    parse_gptq(m, q);
  } else if (*method == "auto-round" || *method == "intel/auto-round") {
    parse_auto_round(m, q);
  } else if (*method == "bitsandbytes") {
    parse_bitsandbytes(m, q);
  } else if (*method == "fbgemm_fp8") {
    parse_fbgemm_fp8(m, q);
  } else {
    m.error("quant_method", "quant_method '" + *method +
                                "' is not modelled; gpumem models fp8, modelopt, "
                                "compressed-tensors, mxfp4, awq, gptq, auto-round and "
                                "bitsandbytes");
  }
}

}  // namespace gpumem
