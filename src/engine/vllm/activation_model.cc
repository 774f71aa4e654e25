#include "engine/vllm/activation_model.h"

#include <algorithm>

namespace gpumem::vllm {
namespace {

constexpr std::int64_t kFloat32 = 4;
constexpr std::int64_t kInt32 = 4;
// vllm layers/vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE.
constexpr std::int64_t kVocabPadding = 64;
// vllm layers/fused_moe/fused_moe.py: moe_align_block_size pads every expert's tokens to a
// multiple of the Triton block (BLOCK_SIZE_M, at most 64 in the default configs).
constexpr std::int64_t kMoeAlignBlock = 64;

// A layer of an attention-free Mamba stack (vllm mamba2.py / mamba.py decoder layers): the
// norm, in_proj's output, the causal convolution's output, the scan's output, then out_proj.
// vllm layers/mamba/mamba_mixer2.py MambaMixer2.forward: projected_states (gate, x B C, dt),
// the convolved x B C, preallocated_ssm_out, the gated norm; mamba_mixer.py MambaMixer.forward:
// in_proj (x, z), the convolved x, x_proj (dt, B, C), dt_proj, the scan's output. The chunked
// scan's float32 chunk states are not modelled.
std::vector<Activation> mamba_layer_activations(const Architecture& a, const ForwardShape& s,
                                                std::int64_t n, std::int64_t eb) {
  ActivationList l;
  const LinearAttentionConfig& g = a.linear;
  const std::int64_t h = a.hidden_size;
  const std::int64_t inner = g.value_dim() / s.tp;
  const int norm = l.add("input_layernorm", n * h, eb);
  int scan = 0;
  if (g.kind == LinearKind::kMamba1) {
    const int in_proj = l.add("in_proj", n * 2 * inner, eb);
    l.dies_after(norm, in_proj);
    const int conv = l.add("conv1d", n * inner, eb);
    const int x_proj = l.add("x_proj", n * (g.time_step_rank + 2 * g.key_head_dim), eb);
    const int dt = l.add("dt_proj", n * inner, eb);
    scan = l.add("selective_scan", n * inner, eb);
    for (int t : {in_proj, conv, x_proj, dt}) l.dies_after(t, scan);
  } else {
    // mamba2_state_shape: one group is copied to every rank; more split.
    const std::int64_t groups = g.num_key_heads % s.tp == 0 ? g.num_key_heads / s.tp : 1;
    const std::int64_t conv_dim = inner + 2 * groups * g.key_head_dim;
    const int in_proj = l.add("in_proj", n * (inner + conv_dim + g.num_value_heads / s.tp), eb);
    l.dies_after(norm, in_proj);
    const int conv = l.add("conv1d", n * conv_dim, eb);
    const int ssm = l.add("preallocated_ssm_out", n * inner, eb);
    l.dies_after(conv, ssm);
    scan = l.add("gated_norm", n * inner, eb);
    l.dies_after(in_proj, scan);
    l.dies_after(ssm, scan);
  }
  const int out = l.add("out_proj", n * h, eb);
  l.dies_after(scan, out);
  return l.take();
}

// A MoE block over n tokens after its input norm `input`: router, fused experts, shared experts.
void add_moe_activations(ActivationList& l, const Architecture& a, const ForwardShape& s,
                         std::int64_t n, std::int64_t eb, const ActivationConstants& k, int input) {
  const std::int64_t h = a.hidden_size;
  // vllm layers/fused_moe/layer.py FusedMoE and fused_moe.py fused_experts_impl: router
  // logits and top-k, the aligned token ids, then intermediate_cache13 of
  // M x top_k x max(2I, H) and intermediate_cache2 of M x top_k x I, M the chunk; the
  // output is written in place.
  const MoeConfig& m = a.moe;
  const std::int64_t inter = m.moe_intermediate_size / s.moe_tp;
  const std::int64_t topk = m.experts_per_token;
  int router = l.add("router_logits", n * m.num_experts, eb);
  // With data parallelism (vllm v0.21 layers/fused_moe/layer.py FusedMoE.forward_impl,
  // do_naive_dispatch_combine; all2all.py AgRsAll2AllManager.dispatch): the hidden states
  // and router logits of every DP rank are all-gathered, the experts run on all of them
  // (in place in the gathered rows) and combine reduce-scatters this rank's rows back.
  const std::int64_t routed = n * s.moe_dp;
  int gathered = -1;
  if (s.moe_dp > 1) {
    gathered = l.add("dispatched_hidden_states", routed * h, eb);
    const int gathered_logits = l.add("dispatched_router_logits", routed * m.num_experts, eb);
    l.dies_after(router, gathered_logits);
    router = gathered_logits;
  }
  const std::int64_t chunk = std::min(routed, k.fused_moe_chunk_tokens);
  const int weights = l.add("topk_weights", routed * topk, kFloat32);
  const int ids = l.add("topk_ids", routed * topk, kInt32);
  l.dies_after(router, ids);
  const int sorted =
      l.add("sorted_token_ids", routed * topk + m.num_experts * (kMoeAlignBlock - 1), kInt32);
  const int cache13 = l.add("intermediate_cache13", chunk * topk * std::max(2 * inter, h), eb);
  const int cache2 = l.add("intermediate_cache2", chunk * topk * inter, eb);
  int last = cache2;
  if (s.moe_dp > 1) {
    last = l.add("combined_hidden_states", n * h, eb);
    l.dies_after({weights, ids, sorted, cache13, cache2, gathered}, last);
  }
  if (m.num_shared_experts > 0) {
    // The shared experts run as a TP-sharded MLP after the routed ones.
    const std::int64_t shared = m.shared_expert_intermediate_size / s.tp;
    const int sh_gate_up = l.add("shared_experts.gate_up_proj", n * 2 * shared, eb);
    if (s.moe_dp == 1) l.dies_after({weights, ids, sorted, cache13, cache2}, sh_gate_up);
    const int sh_act = l.add("shared_experts.act", n * shared, eb);
    l.dies_after(sh_gate_up, sh_act);
    last = l.add("shared_experts.down_proj", n * h, eb);
    l.dies_after(sh_act, last);
  }
  l.dies_after(input, last);
}

// A DeepSeek-V4 decoder layer (vllm models/deepseek_v4.py DeepseekV4DecoderLayer.forward and
// deepseek_v4_attention.py in the dummy run, UNCONFIRMED against a measured profile): the
// layer's input is hc_mult residual streams; the mixer folds them into one input (float32
// mixing weights beside it), attention runs on the latent path (fused wq_a + wkv, wq_b, the
// grouped output wo_a, wo_b; a ratio-4 layer's compressor and indexer projections, a ratio-128
// layer's compressor), and the mixer writes hc_mult new streams; the experts' block likewise.
std::vector<Activation> compressed_attention_layer_activations(const Architecture& a,
                                                               const ForwardShape& s,
                                                               std::int64_t layer, std::int64_t n,
                                                               std::int64_t eb,
                                                               const ActivationConstants& k) {
  ActivationList l;
  const CompressedAttention& c = a.csa;
  const MlaConfig& m = a.mla;
  const std::int64_t h = a.hidden_size;
  const std::int64_t heads = a.num_attention_heads / s.tp;
  const std::int64_t mixes = (2 + c.hc_mult) * c.hc_mult;
  const std::int64_t ratio = c.ratio(layer);
  const int streams_in = l.add("residual_streams_in", n * c.hc_mult * h, eb);
  const int attn_mix = l.add("hc_attn_mixes", n * mixes, kFloat32);
  const int attn_in = l.add("hc_attn_pre", n * h, eb);
  const int norm = l.add("attn_norm", n * h, eb);
  l.dies_after(attn_in, norm);
  const int qkv_a = l.add("fused_wqa_wkv", n * (m.q_lora_rank + a.head_dim), eb);
  l.dies_after(norm, qkv_a);
  const int q_a = l.add("q_norm", n * m.q_lora_rank, eb);
  const int q = l.add("wq_b", n * heads * a.head_dim, eb);
  l.dies_after(q_a, q);
  int last_side = q;
  if (ratio > 1) {
    const std::int64_t overlap = ratio == 4 ? 2 : 1;
    const int kv_gate = l.add("compressor.fused_wkv_wgate", n * 2 * overlap * a.head_dim, eb);
    last_side = kv_gate;
    if (ratio == 4) {
      const int iq = l.add("indexer.wq_b", n * m.index_n_heads * m.index_head_dim, eb);
      const int iw = l.add("indexer.weights_proj", n * m.index_n_heads, eb);
      const int ic = l.add("indexer.compressor.fused_wkv_wgate", n * 4 * m.index_head_dim, eb);
      l.dies_after({kv_gate, iq, iw}, ic);
      last_side = ic;
    }
  }
  const int attn = l.add("attn_output", n * heads * a.head_dim, eb);
  l.dies_after({qkv_a, q, last_side}, attn);
  const int wo_a = l.add("wo_a", n * c.o_groups / s.tp * c.o_lora_rank, eb);
  l.dies_after(attn, wo_a);
  const int wo_b = l.add("wo_b", n * h, eb);
  l.dies_after(wo_a, wo_b);
  const int streams_mid = l.add("hc_attn_post", n * c.hc_mult * h, eb);
  l.dies_after({streams_in, attn_mix, wo_b}, streams_mid);
  const int ffn_mix = l.add("hc_ffn_mixes", n * mixes, kFloat32);
  const int ffn_in = l.add("hc_ffn_pre", n * h, eb);
  const int ffn_norm = l.add("ffn_norm", n * h, eb);
  l.dies_after(ffn_in, ffn_norm);
  add_moe_activations(l, a, s, n, eb, k, ffn_norm);
  const int out = l.add("hc_ffn_post", n * c.hc_mult * h, eb);
  l.dies_after({streams_mid, ffn_mix}, out);
  return l.take();
}

}  // namespace

std::vector<Activation> layer_activations(const Architecture& a, const ForwardShape& s,
                                          std::int64_t layer, std::int64_t n, std::int64_t eb,
                                          const ActivationConstants& k) {
  if (a.attention_free()) return mamba_layer_activations(a, s, n, eb);
  if (a.csa.present()) return compressed_attention_layer_activations(a, s, layer, n, eb, k);
  ActivationList l;
  const std::int64_t h = a.hidden_size;
  const std::int64_t heads = std::max<std::int64_t>(1, a.num_attention_heads / s.tp);
  const std::int64_t kv_heads = std::max<std::int64_t>(1, a.layer_kv_heads(layer) / s.tp);
  const std::int64_t head_dim = a.layer_head_dim(layer);
  // vllm layers/layernorm.py RMSNorm with a residual: the residual stream stays in the two
  // persistent buffers; the normalised copy is new.
  const int norm = l.add("input_layernorm", n * h, eb);
  int attn_out = 0;
  if (a.is_linear_layer(layer) && a.linear.kind == LinearKind::kKimiDelta) {
    // vllm layers/kda.py KimiDeltaAttention.forward in the profile run, whose _forward returns
    // at once without attention metadata: q, k and v, beta in float32, the forget gate through
    // f_a/f_b and fused_kda_gate (float32, UNCONFIRMED), the output gate through g_a/g_b, the
    // zeroed core_attn_out, o_norm.
    const LinearAttentionConfig& g = a.linear;
    const std::int64_t w = g.value_dim() / s.tp;
    const std::int64_t local_heads = g.num_value_heads / s.tp;
    const std::int64_t d = g.value_head_dim;
    const int q = l.add("q_proj", n * w, eb);
    const int k_proj = l.add("k_proj", n * w, eb);
    const int v = l.add("v_proj", n * w, eb);
    const int b = l.add("b_proj", n * local_heads, eb);
    const int beta = l.add("beta", n * local_heads, kFloat32);
    l.dies_after(b, beta);
    const int f_a = l.add("f_a_proj", n * d, eb);
    const int f_b = l.add("f_b_proj", n * w, eb);
    l.dies_after(f_a, f_b);
    const int gate = l.add("fused_kda_gate", n * w, kFloat32);
    l.dies_after(f_b, gate);
    const int g_a = l.add("g_a_proj", n * d, eb);
    const int g_b = l.add("g_b_proj", n * w, eb);
    l.dies_after({g_a, norm}, g_b);
    const int core = l.add("core_attn_out", n * w, eb);
    l.dies_after({q, k_proj, v, beta, gate}, core);
    attn_out = l.add("o_norm", n * w, eb);
    l.dies_after({core, g_b}, attn_out);
  } else if (a.attention == AttentionKind::kMla) {
    // vllm models/deepseek_v2.py DeepseekV2MLAAttention and layers/attention/mla_attention.py
    // prefill path: the latent projections, then the up-projected K/V of the prefill.
    const MlaConfig& m = a.mla;
    const std::int64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const int qkv_a =
        l.add("fused_qkv_a_proj", n * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim), eb);
    l.dies_after(norm, qkv_a);
    int q_in = qkv_a;
    if (m.q_lora_rank > 0) {
      q_in = l.add("q_a_layernorm", n * m.q_lora_rank, eb);
    }
    const int q = l.add("q_b_proj", n * heads * qk, eb);
    if (q_in != qkv_a) l.dies_after(q_in, q);
    const int kv_c = l.add("kv_a_layernorm", n * m.kv_lora_rank, eb);
    l.dies_after(qkv_a, kv_c);
    const int kv_b = l.add("kv_b_proj", n * heads * (m.qk_nope_head_dim + a.v_head_dim), eb);
    l.dies_after(kv_c, kv_b);
    attn_out = l.add("attn_output", n * heads * a.v_head_dim, eb);
    l.dies_after(q, attn_out);
    l.dies_after(kv_b, attn_out);
  } else {
    // vllm models/llama.py LlamaAttention: qkv_proj, rotary in place, attention output.
    const int qkv = l.add("qkv_proj", n * (heads + 2 * kv_heads) * head_dim, eb);
    l.dies_after(norm, qkv);
    const bool gathers_qk = a.qk_norm_replicated && s.tp > 1;
    int q_norm = -1;
    int k_norm = -1;
    if (gathers_qk) {
      // vllm olmo2.py Olmo2Attention._apply_qk_norm: every rank's q and k all-gathered,
      // normalized whole, then split back (the split rows are views of the normalized ones).
      const int q_all = l.add("q_all_gather", n * a.num_attention_heads * a.head_dim, eb);
      const int k_all = l.add("k_all_gather", n * a.num_key_value_heads * a.head_dim, eb);
      q_norm = l.add("q_norm", n * a.num_attention_heads * a.head_dim, eb);
      k_norm = l.add("k_norm", n * a.num_key_value_heads * a.head_dim, eb);
      l.dies_after({q_all, k_all}, k_norm);
    }
    attn_out = l.add("attn_output", n * heads * head_dim, eb);
    l.dies_after(qkv, attn_out);
    if (gathers_qk) l.dies_after({q_norm, k_norm}, attn_out);
  }
  const int o = l.add("o_proj", n * h, eb);
  l.dies_after(attn_out, o);
  const int post_norm = l.add("post_attention_layernorm", n * h, eb);
  l.dies_after(o, post_norm);
  const bool moe = a.is_moe_layer(layer);
  if (moe) add_moe_activations(l, a, s, n, eb, k, post_norm);
  // Gemma 4 (moe_beside_mlp): the dense MLP runs beside the experts.
  if (!moe || a.moe_beside_mlp) {
    // vllm models/llama.py LlamaMLP: gate_up_proj, SiluAndMul, down_proj.
    const std::int64_t inter = a.intermediate_size / s.tp;
    // vllm quantization/bitsandbytes.py _apply_bnb_4bit: into the output, each part through
    // bitsandbytes matmul_4bit, which over more than one token dequantizes the part's weight to
    // a model-dtype temporary and returns its product as a new tensor.
    const bool bnb = a.quantization.method == QuantMethod::kBitsAndBytes4 && n > 1;
    const int gate_up = l.add("gate_up_proj", n * 2 * inter, eb);
    l.dies_after(post_norm, gate_up);
    int product = -1;
    if (bnb) {
      const int weight = l.add("bnb_dequantized_gate_proj", inter * h, eb);
      product = l.add("bnb_gate_proj_product", n * inter, eb);
      l.dies_after(weight, product);
    }
    const int act = l.add("act_fn", n * inter, eb);
    l.dies_after(gate_up, act);
    if (product >= 0) l.dies_after(product, act);
    const int down = l.add("down_proj", n * h, eb);
    l.dies_after(act, down);
    if (bnb) {
      const int weight = l.add("bnb_dequantized_down_proj", h * inter, eb);
      l.dies_after(weight, l.add("bnb_down_proj_product", n * h, eb));
    }
  }
  return l.take();
}

std::vector<Activation> logits_activations(const Architecture& a, const ForwardShape& s,
                                           std::int64_t requests, std::int64_t eb) {
  ActivationList l;
  const std::int64_t padded = (a.vocab_size + kVocabPadding - 1) / kVocabPadding * kVocabPadding;
  const int local = l.add("lm_head", requests * padded / s.tp, eb);
  if (s.tp > 1) {
    const int gathered = l.add("logits_all_gather", requests * padded, eb);
    l.dies_after(local, gathered);
  }
  return l.take();
}

std::vector<Activation> sampler_activations(const Architecture& a, std::int64_t requests,
                                            const ActivationConstants& k) {
  ActivationList l;
  for (int i = 0; i < k.sampler_float32_vocab_tensors; ++i) {
    l.add(i == 0 ? "logits_float32" : "sampler_float32_" + std::to_string(i),
          requests * a.vocab_size, kFloat32);
  }
  return l.take();
}

int layer_kernels(const Architecture& a, std::int64_t layer, bool with_attention,
                  const ActivationConstants& k) {
  int n = a.is_moe_layer(layer) ? k.moe_layer_kernels : k.dense_layer_kernels;
  if (a.attention == AttentionKind::kMla) n += k.mla_extra_kernels;
  if (with_attention) n += k.attention_kernels;
  return n;
}

}  // namespace gpumem::vllm
