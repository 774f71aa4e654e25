#include "weights/deepseek_v4_checkpoint.h"

#include <numeric>
#include <string>

namespace gpumem {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class V4CheckpointBuilder {
 public:
  explicit V4CheckpointBuilder(const Architecture& a) : a_(a) {}

  void build() {
    const std::int64_t h = a_.hidden_size;
    add("embed.weight", {a_.vocab_size, h}, DType::kBFloat16);
    for (std::int64_t i = 0; i < a_.num_hidden_layers; ++i) {
      layer("layers." + str(i), a_.csa.ratio(i), i < a_.csa.num_hash_layers);
    }
    add("norm.weight", {h}, DType::kBFloat16);
    head_mixer("");
    add("head.weight", {a_.vocab_size, h}, DType::kBFloat16);
    // mtp.K: one decoder layer (its compress ratio follows the decoder layers'), the two input
    // projections and norms, its own final norm and head mixer; it shares embed and head.
    for (std::int64_t k = 0; k < a_.num_nextn_predict_layers; ++k) {
      const std::string p = "mtp." + str(k);
      layer(p, a_.csa.ratio(a_.num_hidden_layers + k), false);
      fp8(p + ".e_proj", h, h);
      fp8(p + ".h_proj", h, h);
      for (const char* n : {".enorm", ".hnorm", ".norm"}) add(p + n + ".weight", {h}, kBf16);
      head_mixer(p + ".");
    }
  }

  std::vector<CheckpointTensor> take() { return std::move(out_); }

 private:
  static constexpr DType kBf16 = DType::kBFloat16;

  void add(const std::string& name, std::vector<std::int64_t> shape, DType dtype) {
    const std::int64_t n =
        std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
    out_.push_back(
        {name, std::move(shape), std::string(safetensors_dtype(dtype)), element_size(dtype) * n});
  }

  // A block-FP8 linear: e4m3 weights and one e8m0 scale per block.
  void fp8(const std::string& module, std::int64_t out, std::int64_t in) {
    const Quantization& q = a_.quantization;
    add(module + ".weight", {out, in}, DType::kFloat8E4M3);
    add(module + ".scale", {ceil_div(out, q.block_n), ceil_div(in, q.block_k)}, DType::kFloat8E8M0);
  }

  // An MXFP4 expert linear: value pairs in int8, an e8m0 scale per 32 values of a row.
  void mxfp4(const std::string& module, std::int64_t out, std::int64_t in) {
    add(module + ".weight", {out, in / 2}, DType::kInt8);
    add(module + ".scale", {out, in / 32}, DType::kFloat8E8M0);
  }

  // The hyper-connection mixer that folds the hc_mult streams into one before the head.
  void head_mixer(const std::string& p) {
    const std::int64_t hc = a_.csa.hc_mult;
    add(p + "hc_head_fn", {hc, hc * a_.hidden_size}, DType::kFloat32);
    add(p + "hc_head_base", {hc}, DType::kFloat32);
    add(p + "hc_head_scale", {1}, DType::kFloat32);
  }

  // A compressor pooling `ratio` tokens of `width`-wide keys: ratio 4 overlaps two windows,
  // so its projections and position bias are twice as wide.
  void compressor(const std::string& p, std::int64_t ratio, std::int64_t width) {
    const std::int64_t w = (ratio == 4 ? 2 : 1) * width;
    add(p + ".wkv.weight", {w, a_.hidden_size}, kBf16);
    add(p + ".wgate.weight", {w, a_.hidden_size}, kBf16);
    add(p + ".ape", {ratio, w}, DType::kFloat32);
    add(p + ".norm.weight", {width}, kBf16);
  }

  void layer(const std::string& p, std::int64_t ratio, bool hash_routed) {
    const std::int64_t h = a_.hidden_size;
    const std::int64_t heads = a_.num_attention_heads;
    const std::int64_t latent = a_.head_dim;
    const MlaConfig& m = a_.mla;
    const CompressedAttention& c = a_.csa;
    const MoeConfig& e = a_.moe;
    add(p + ".attn_norm.weight", {h}, kBf16);
    add(p + ".ffn_norm.weight", {h}, kBf16);
    const std::string at = p + ".attn";
    add(at + ".q_norm.weight", {m.q_lora_rank}, kBf16);
    add(at + ".kv_norm.weight", {latent}, kBf16);
    fp8(at + ".wq_a", m.q_lora_rank, h);
    fp8(at + ".wq_b", heads * latent, m.q_lora_rank);
    fp8(at + ".wkv", latent, h);
    fp8(at + ".wo_a", c.o_groups * c.o_lora_rank, heads * latent / c.o_groups);
    fp8(at + ".wo_b", h, c.o_groups * c.o_lora_rank);
    add(at + ".attn_sink", {heads}, DType::kFloat32);
    if (ratio > 1) compressor(at + ".compressor", ratio, latent);
    if (ratio == 4) {
      fp8(at + ".indexer.wq_b", m.index_n_heads * m.index_head_dim, m.q_lora_rank);
      add(at + ".indexer.weights_proj.weight", {m.index_n_heads, h}, kBf16);
      compressor(at + ".indexer.compressor", ratio, m.index_head_dim);
    }
    const std::int64_t mixes = (2 + c.hc_mult) * c.hc_mult;
    for (const char* s : {"attn", "ffn"}) {
      add(p + ".hc_" + s + "_fn", {mixes, c.hc_mult * h}, DType::kFloat32);
      add(p + ".hc_" + s + "_base", {mixes}, DType::kFloat32);
      add(p + ".hc_" + s + "_scale", {3}, DType::kFloat32);
    }
    add(p + ".ffn.gate.weight", {e.num_experts, h}, kBf16);
    if (hash_routed) {
      add(p + ".ffn.gate.tid2eid", {a_.vocab_size, e.experts_per_token}, DType::kInt64);
    } else {
      add(p + ".ffn.gate.bias", {e.num_experts}, DType::kFloat32);
    }
    const std::int64_t shared = e.shared_expert_intermediate_size;
    fp8(p + ".ffn.shared_experts.w1", shared, h);
    fp8(p + ".ffn.shared_experts.w2", h, shared);
    fp8(p + ".ffn.shared_experts.w3", shared, h);
    const std::int64_t inter = e.moe_intermediate_size;
    for (std::int64_t x = 0; x < e.num_experts; ++x) {
      const std::string ex = p + ".ffn.experts." + str(x);
      mxfp4(ex + ".w1", inter, h);
      mxfp4(ex + ".w2", h, inter);
      mxfp4(ex + ".w3", inter, h);
    }
  }

  const Architecture& a_;
  std::vector<CheckpointTensor> out_;
};

}  // namespace

Result<std::vector<CheckpointTensor>> deepseek_v4_checkpoint_tensors(const Architecture& a) {
  const Quantization& q = a.quantization;
  if (q.method != QuantMethod::kFp8Block || q.block_n <= 0 || q.block_k <= 0) {
    return invalid_input(a.hf_architecture +
                         ": only DeepSeek's block-FP8 checkpoint layout is derived (quantization " +
                         std::string(quant_method_name(q.method)) + ")");
  }
  V4CheckpointBuilder b(a);
  b.build();
  return b.take();
}

}  // namespace gpumem
