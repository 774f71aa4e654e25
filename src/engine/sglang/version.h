// SGLang release versions and the start-up rules that changed between them.
//
// gpumem models v0.4.6 through v0.5.21. Rules that differ are data here, keyed by version, so
// the engine model has one code path with small branches instead of copies per release. The
// baseline is v0.5.9, read line by line (research/sglang-memory.md); the releases around it
// come from staging/releases/sglang.md, which places each change by the PR that made it.
// Where only a PR's merge date is known, the rule starts at the next release after it and is
// marked UNCONFIRMED. Releases by rule set (sglang.md §2):
//
//   0.4.6 – 0.4.6.post5  --mem-fraction-static by TP x PP; 160 decode graphs at most; the
//                        request pool has one row more (≤ 80 GiB GPUs: the > 80 GiB defaults
//                        of 0.4.6.x are refused, no source states them)
//   0.4.7 – 0.5.2        PR #7054: a reserve per GPU size class; the fixed capture list
//   0.5.3 – 0.5.6        PR #10975: the reserve formula of v0.5.9 and its generated list;
//                        EAGLE's target pool grows by the draft's headroom
//   0.5.7 – 0.5.9        the baseline
//   0.5.10 – 0.5.18      research/sglang-memory.md §3.10 (piecewise graphs, the speculative
//                        reserve, the draft in the KV sizing, the log lines per graph kind)
//   0.5.19 – 0.5.20      PR #37898: the < 35 GiB class takes 4096-token chunks and 48/160
//                        decode graphs
//   0.5.21               0.5.20's rules: no PR merged between the two releases (2026-09-18
//                        to 2026-10-01) changes a start-up memory rule gpumem models
//                        (research/sglang-0520-plus.md; UNCONFIRMED against the tag's tree);
//                        its flag table is the one gpumem reads (newest_flags.h)
#ifndef GPUMEM_ENGINE_SGLANG_VERSION_H_
#define GPUMEM_ENGINE_SGLANG_VERSION_H_

#include <optional>
#include <string>
#include <string_view>

namespace gpumem::sglang {

struct Version {
  int major = 0;
  int minor = 0;
  int patch = 0;
  int post = 0;  // "0.4.6.post3": 3; rules change at post releases of 0.4.6
  auto operator<=>(const Version&) const = default;
  std::string to_string() const;
};

// "0.5.9" or "v0.5.9"; also post releases "0.4.6.post3".
std::optional<Version> parse_version(std::string_view text);

inline constexpr Version kOldestModelled{0, 4, 6};
inline constexpr Version kNewestModelled{0, 5, 21};
// The releases at which a memory rule of the SGLang model changes (a `Version{...}`
// comparison in engine/sglang/), oldest first, ending with the newest modelled: a release
// between two of them runs the rules of the earlier. Explain picks a logged start-up's
// release among them.
inline constexpr const char* kRuleChanges[] = {
    "0.4.6",  "0.4.6.post2", "0.4.6.post3", "0.4.6.post4", "0.4.7",  "0.4.10", "0.5.0", "0.5.1",
    "0.5.2",  "0.5.3",       "0.5.4",       "0.5.5",       "0.5.6",  "0.5.7",  "0.5.9", "0.5.10",
    "0.5.12", "0.5.14",      "0.5.17",      "0.5.18",      "0.5.19", "0.5.20", "0.5.21"};
// A release is modelled from kOldestModelled up to kNewestModelled and its post releases.
bool is_modelled(const Version& v);

// How --mem-fraction-static is chosen when the user leaves it out.
enum class MemFractionRule {
  kByParallelSize,  // ≤ v0.4.6.x server_args.py __post_init__: 0.88 ... 0.79 by TP x PP
  kReserveByClass,  // PR #7054 (v0.4.7): reserve (2.8 + p/10) ... 32 GiB by GPU size class
  kReserveFormula,  // PR #10975 (v0.5.3): 512 + 1.5 x chunk + 2 x max_bs + p/8 GiB + graphs
};

// The version-dependent rules the model consults.
struct VersionRules {
  MemFractionRule mem_fraction;
  // The capture list is v0.5.9's generated ladder (PR #10975, v0.5.3); before, the fixed
  // [1, 2, 4, 8] + 16..160 of cuda_graph_runner.py get_batch_sizes_to_capture, extended on
  // large GPUs.
  bool generated_capture_list;
  // The fixed list's large-GPU extensions start above 96 GiB and 180,000 MiB, and a list
  // ending below --cuda-graph-max-bs is extended in steps of 16 (PR #6201, merged
  // 2025-05-11; v0.4.6.post3 UNCONFIRMED); before, above 81,920 MiB with one DP rank only.
  bool capture_list_pr6201;
  // The automatic --mem-fraction-static above 81,920 MiB: 0.88, raised above 96 GiB to leave
  // 18 GiB (PR #5893, v0.4.6.post2); before, it left 13 GiB. Up to v0.4.6.x only.
  bool large_gpu_fraction_pr5893;
  // The request pool has max_num_reqs + 1 rows (memory_pool.py ReqToTokenPool(size + 1))
  // through v0.4.6.x; 2048-row pools are logged from v0.4.9 (v0.4.7 UNCONFIRMED).
  bool req_pool_extra_row;
  // The EAGLE target's token pool grows by the draft's and the verifier's headroom
  // (model_runner.py init_memory_pool) until PR #15748 (v0.5.7).
  bool eagle_token_headroom;
  // Piecewise CUDA graphs on unless disabled (PR #16331, v0.5.10).
  bool piecewise_cuda_graph_default_on;
  // MiB the mfs heuristic reserves for EAGLE/EAGLE3/NEXTN drafts (none by TP table, 2048 from
  // PR #7054, 4096 in v0.5.10–0.5.13, none from v0.5.14 where the draft is budgeted exactly,
  // PR #23862).
  int speculative_reserve_mib;
  // Draft KV folded into cell_size and draft weights loaded before KV sizing (v0.5.14).
  bool draft_counted_in_kv_sizing;
  // max_running_requests default min(estimate, T//2) in the pool sizing (v0.5.10).
  bool max_reqs_capped_by_half_tokens;
  // The decode capture list gains --cuda-graph-max-bs when the ladder skips it (v0.5.18).
  bool capture_list_appends_max_bs;
  // PR #37898 (merged 2026-09-04; v0.5.19 UNCONFIRMED): GPUs below 35 GiB take 4096-token
  // chunks and 48 (TP < 4) / 160 decode graphs instead of 2048 and 24 / 80.
  bool small_gpu_class_raised;
  // DeepSeek DSA's KV budget counts the latent as stored (656 bytes in the FP8 layout):
  // v0.5.18 pool_configurator.py calls calculate_mla_kv_cache_dim; v0.5.9 counted 576 bytes.
  bool dsa_cell_counts_stored_latent;
  // Log wording (sglang.md §9): the summary line ends with available_gpu_mem from v0.4.7
  // (2025-07 logs; UNCONFIRMED release); "KV Cache is allocated. dtype: ..." after v0.5.9
  // (v0.5.10 UNCONFIRMED); one begin/end pair per graph kind ("Capture target decode CUDA
  // graph", PR #23906, v0.5.12; certain from v0.5.13) whose token field is
  // num_tokens_per_bs in 2026-07 logs and num_tokens_per_req from 2026-08 (v0.5.17
  // UNCONFIRMED); "Load weight end" without "dtype=" in 2026-08 logs (v0.5.17 UNCONFIRMED).
  bool summary_has_available_mem;
  bool kv_log_has_dtype;
  bool graph_log_per_kind;
  bool graph_log_tokens_per_req;
  bool load_log_has_dtype;
};

VersionRules rules_for(const Version& v);

}  // namespace gpumem::sglang

#endif  // GPUMEM_ENGINE_SGLANG_VERSION_H_
