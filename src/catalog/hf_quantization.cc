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

void parse_compressed_tensors(const ConfigMap& m, Quantization& q) {
  std::optional<std::string> format = m.string("format");
  if (!format) {
    if (!m.has("format")) m.missing("format");
    return;
  }
  if (*format != "pack-quantized") {
    m.error("format", "compressed-tensors format '" + *format +
                          "' is not modelled; gpumem models pack-quantized");
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
  } else {
    m.error("quant_algo", "ModelOpt quant_algo '" + *algo +
                              "' is not modelled; gpumem models FP8 and "
                              "FP8_PER_CHANNEL_PER_TOKEN");
    return;
  }
  q.kv_cache_fp8 = m.string("kv_cache_quant_algo").value_or("") == "FP8";
  read_module_patterns(m, "exclude_modules", q.not_converted);
}

void parse_quantization(const ConfigMap& m, Quantization& q) {
  std::optional<std::string> method = m.string("quant_method");
  if (!method) {
    if (!m.has("quant_method")) m.missing("quant_method");
    return;
  }
  if (*method == "fp8") {
    std::optional<std::vector<std::int64_t>> block = m.integers("weight_block_size");
    if (!block) {
      if (!m.has("weight_block_size")) {
        m.error("quant_method",
                "fp8 quantization without 'weight_block_size' (per-tensor) is not modelled");
      }
      return;
    }
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
  } else {
    m.error("quant_method", "quant_method '" + *method +
                                "' is not modelled; gpumem models fp8, modelopt, "
                                "compressed-tensors and mxfp4");
  }
}

}  // namespace gpumem
