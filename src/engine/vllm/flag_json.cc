#include "engine/vllm/flag_json.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/spelling.h"

namespace gpumem::vllm {
namespace {

// A JSON object given as a flag's value, parsed; errors are reported at the value.
std::optional<YAML::Node> json_object(const FlagValues& v, std::string_view flag,
                                      Diagnostics& diags) {
  std::optional<std::string> text = v.string(flag);
  if (!text) return std::nullopt;
  YAML::Node node;
  try {
    node = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    diags.error(*v.location(flag), std::string(flag) + " is not valid JSON: " + e.msg);
    return std::nullopt;
  }
  if (!node.IsMap()) {
    diags.error(*v.location(flag), std::string(flag) + " must be a JSON object");
    return std::nullopt;
  }
  return node;
}

// Reports a JSON key vLLM's config class does not have.
void unknown_key(const FlagValues& v, std::string_view flag, const std::string& key,
                 const std::vector<std::string>& known, Diagnostics& diags) {
  diags.error(*v.location(flag),
              "unknown key '" + key + "' in " + std::string(flag) + did_you_mean(key, known));
}

std::optional<std::int64_t> json_int(const YAML::Node& n) {
  try {
    return n.as<std::int64_t>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

}  // namespace

// vllm config/compilation.py CompilationConfig: the fields that change memory, then the
// others a user may set (accepted and ignored).
void read_compilation_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  constexpr std::string_view kFlag = "--compilation-config";
  // A bare number ("-O3") is a level: vllm config/compilation.py CompilationConfig.from_cli
  // before v0.12.0, the optimization level after (engine/arg_utils.py, PR #26847).
  const std::string text = v.string(kFlag).value_or("");
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    if (text.size() > 1 || text[0] > '3') {
      diags.error(*v.location(kFlag), "-O " + text + ": the level must be 0, 1, 2 or 3");
    } else {
      f.optimization_level = text[0] - '0';
    }
    return;
  }
  std::optional<YAML::Node> config = json_object(v, kFlag, diags);
  if (!config) return;
  static const std::vector<std::string> kIgnored = {"backend",
                                                    "splitting_ops",
                                                    "use_inductor",
                                                    "compile_sizes",
                                                    "inductor_compile_config",
                                                    "inductor_passes",
                                                    "pass_config",
                                                    "cudagraph_num_of_warmups",
                                                    "cudagraph_copy_inputs",
                                                    "use_cudagraph",
                                                    "debug_dump_path",
                                                    "cache_dir",
                                                    "compile_mm_encoder",
                                                    "use_inductor_graph_partition",
                                                    "cudagraph_specialize_lora",
                                                    "compile_ranges_split_points",
                                                    "dynamic_shapes_config"};
  std::vector<std::string> known = {"cudagraph_capture_sizes",
                                    "max_cudagraph_capture_size",
                                    "cudagraph_mode",
                                    "mode",
                                    "level",
                                    "custom_ops"};
  known.insert(known.end(), kIgnored.begin(), kIgnored.end());
  const SourceLoc where = *v.location(kFlag);
  for (auto it = config->begin(); it != config->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node value = it->second;
    if (key == "cudagraph_capture_sizes") {
      std::vector<std::int64_t> sizes;
      bool ok = value.IsSequence();
      for (size_t i = 0; ok && i < value.size(); ++i) {
        std::optional<std::int64_t> s = json_int(value[i]);
        ok = s && *s >= 1;
        if (ok) sizes.push_back(*s);
      }
      if (!ok) {
        diags.error(where,
                    "cudagraph_capture_sizes in --compilation-config must be a list of "
                    "positive integers");
      } else {
        f.cudagraph_capture_sizes = sizes;
      }
    } else if (key == "max_cudagraph_capture_size") {
      std::optional<std::int64_t> s = json_int(value);
      if (!s || *s < 1) {
        diags.error(where,
                    "max_cudagraph_capture_size in --compilation-config must be a positive "
                    "integer");
      } else {
        f.max_cudagraph_capture_size = s;
      }
    } else if (key == "cudagraph_mode") {
      static const std::vector<std::string> kModes = {"NONE", "PIECEWISE", "FULL",
                                                      "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE"};
      const std::string mode = value.IsScalar() ? value.Scalar() : "";
      const auto m = std::find(kModes.begin(), kModes.end(), mode);
      if (m == kModes.end()) {
        diags.error(where,
                    "cudagraph_mode in --compilation-config must be one of NONE, "
                    "PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE; got '" +
                        mode + "'" + did_you_mean(mode, kModes));
      } else {
        f.cudagraph_mode = static_cast<CudagraphMode>(m - kModes.begin());
      }
    } else if (key == "mode" || key == "level") {
      // config/compilation.py CompilationMode: NONE 0, STOCK_TORCH_COMPILE 1,
      // DYNAMO_TRACE_ONCE 2, VLLM_COMPILE 3 (the same numbers as the older levels).
      const std::optional<std::int64_t> mode = json_int(value);
      if (!mode || *mode < 0 || *mode > 3) {
        diags.error(where, key + " in --compilation-config must be 0, 1, 2 or 3");
      } else {
        f.compilation_mode = static_cast<int>(*mode);
      }
    } else if (key == "custom_ops") {
      bool ok = value.IsSequence();
      for (size_t i = 0; ok && i < value.size(); ++i) {
        ok = value[i].IsScalar();
        if (ok) f.custom_ops.push_back(value[i].Scalar());
      }
      if (!ok) diags.error(where, "custom_ops in --compilation-config must be a list of names");
    } else if (std::find(kIgnored.begin(), kIgnored.end(), key) == kIgnored.end()) {
      unknown_key(v, kFlag, key, known, diags);
    }
  }
}

// --limit-mm-per-prompt '{"image": 0, "video": 0}': whether every modality a Qwen-VL tower
// serves is limited to 0 (a modality not named keeps vLLM's default limit).
void read_mm_limits(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  // The older form "image=1,video=0" (vllm engine/arg_utils.py nullable_kvs) reads as the
  // mapping {image: 1, video: 0}.
  std::optional<YAML::Node> limits;
  const std::string text = v.string("--limit-mm-per-prompt").value_or("");
  if (!text.empty() && text.front() != '{') {
    YAML::Node map(YAML::NodeType::Map);
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find(',', start), text.size());
      const std::string pair = text.substr(start, end - start);
      const size_t eq = pair.find('=');
      if (eq == std::string::npos) {
        diags.error(*v.location("--limit-mm-per-prompt"),
                    "--limit-mm-per-prompt: '" + pair + "' is not modality=count");
        return;
      }
      map[pair.substr(0, eq)] = pair.substr(eq + 1);
      start = end + 1;
    }
    limits = map;
  } else {
    limits = json_object(v, "--limit-mm-per-prompt", diags);
  }
  if (!limits) return;
  // vllm multimodal/registry.py: the modalities a processor takes. An audio limit changes
  // nothing gpumem builds: every model with an audio tower (Gemma 4's, Qwen3-Omni) is
  // refused by name.
  static const std::vector<std::string> kModalities = {"image", "video", "audio", "vision_chunk"};
  for (auto it = limits->begin(); it != limits->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (std::find(kModalities.begin(), kModalities.end(), key) == kModalities.end()) {
      diags.error(*v.location("--limit-mm-per-prompt"),
                  "--limit-mm-per-prompt: unknown modality '" + key +
                      "'; vLLM's are image, video, audio and vision_chunk" +
                      did_you_mean(key, kModalities));
      return;
    }
    // A value may be a count or, from later releases, a mapping with a "count"; its other
    // keys (config/multimodal.py ImageDummyOptions and VideoDummyOptions: width, height,
    // num_frames) resize the profile's dummy items.
    if (it->second.IsMap()) {
      for (auto option = it->second.begin(); option != it->second.end(); ++option) {
        const std::string name = option->first.as<std::string>();
        if (name == "count") continue;
        diags.error(*v.location("--limit-mm-per-prompt"),
                    "--limit-mm-per-prompt: '" + key + "' option '" + name +
                        "' resizes the encoder profile's dummy items, which gpumem does not "
                        "model (it models the processor's own sizes; 'count' is read)");
        return;
      }
    }
    const YAML::Node value = it->second.IsMap() ? it->second["count"] : it->second;
    const std::optional<std::int64_t> n = json_int(value);
    if (!n || *n < 0) {
      diags.error(
          *v.location("--limit-mm-per-prompt"),
          "--limit-mm-per-prompt: the limit of '" + key + "' must be a non-negative integer");
      return;
    }
    if (key == "image") f.image_limit = *n;
    if (key == "video") f.video_limit = *n;
    if (key == "vision_chunk") f.vision_chunk_limit = *n;
  }
  f.images_off = f.image_limit == 0;
  f.multimodal_off = f.multimodal_off || (f.images_off && f.video_limit == 0);
}

// vllm config/speculative.py SpeculativeConfig: the fields that change memory.
void read_speculative_config(const FlagValues& v, EngineFlags& f, Diagnostics& diags) {
  constexpr std::string_view kFlag = "--speculative-config";
  std::optional<YAML::Node> config = json_object(v, kFlag, diags);
  if (!config) return;
  static const std::vector<std::string> kIgnored = {
      "draft_tensor_parallel_size",   "prompt_lookup_max", "prompt_lookup_min", "max_model_len",
      "disable_padded_drafter_batch", "quantization",      "revision",          "code_revision",
      "disable_by_batch_size",        "acceptance_method"};
  std::vector<std::string> known = {"method", "model", "num_speculative_tokens"};
  known.insert(known.end(), kIgnored.begin(), kIgnored.end());
  const SourceLoc where = *v.location(kFlag);
  SpeculativeFlags s;
  bool has_tokens = false;
  for (auto it = config->begin(); it != config->end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node value = it->second;
    if (key == "method") {
      s.method = value.IsScalar() ? value.Scalar() : "";
    } else if (key == "model") {
      if (value.IsScalar()) s.model = value.Scalar();
    } else if (key == "num_speculative_tokens") {
      std::optional<std::int64_t> n = json_int(value);
      if (!n || *n < 1) {
        diags.error(where,
                    "num_speculative_tokens in --speculative-config must be a positive "
                    "integer");
        return;
      }
      s.num_speculative_tokens = *n;
      has_tokens = true;
    } else if (std::find(kIgnored.begin(), kIgnored.end(), key) == kIgnored.end()) {
      unknown_key(v, kFlag, key, known, diags);
    }
  }
  // vllm config/speculative.py SpeculativeConfig.__post_init__: the per-model MTP names are
  // the one "mtp" method (PR #25232); qwen3_next_mtp came with Qwen3-Next (v0.10.2).
  static const std::vector<std::string> kMtpNames = {"deepseek_mtp", "glm4_moe_mtp",
                                                     "qwen3_next_mtp"};
  s.method_as_written = s.method;
  if (std::find(kMtpNames.begin(), kMtpNames.end(), s.method) != kMtpNames.end()) s.method = "mtp";
  static const std::vector<std::string> kMethods = {"ngram", "eagle3", "mtp"};
  if (std::find(kMethods.begin(), kMethods.end(), s.method) == kMethods.end()) {
    std::vector<std::string> names = kMethods;
    names.insert(names.end(), kMtpNames.begin(), kMtpNames.end());
    diags.error(where, "--speculative-config method '" + s.method +
                           "' is not modelled; gpumem models ngram, eagle3 and mtp (deepseek_mtp, "
                           "glm4_moe_mtp, qwen3_next_mtp)" +
                           did_you_mean(s.method, names));
    return;
  }
  if (!has_tokens) {
    diags.error(where, "--speculative-config needs num_speculative_tokens");
    return;
  }
  if (s.method == "eagle3" && !s.model) {
    diags.error(where, "--speculative-config method " + s.method + " needs a draft 'model'");
    return;
  }
  if (s.method == "mtp" && s.model) {
    // The draft is the target checkpoint's own MTP layers; a separate MTP checkpoint is not
    // modelled.
    diags.error(where, "--speculative-config method " + s.method_as_written +
                           " drafts with the target's own MTP layers; a draft 'model' is not "
                           "modelled");
    return;
  }
  f.speculative = s;
}

}  // namespace gpumem::vllm
