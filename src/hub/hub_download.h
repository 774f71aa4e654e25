// Bringing a model's configuration and safetensors headers from the Hugging Face Hub into
// the local cache — only what gpumem reads, never the weights.
//
// For `org/name` at revision main, over HTTP(S) with libcurl (as huggingface_hub's
// hf_hub_download does: GET <endpoint>/<repo>/resolve/<revision>/<file>, following the
// redirects to the file store, `Authorization: Bearer <HF_TOKEN>` when a token is set):
//   * config.json (required; its X-Repo-Commit response header names the commit, and every
//     later file is fetched at that commit so they all come from one revision);
//   * when present: hf_quant_config.json, quantize_config.json, quant_config.json,
//     generation_config.json and model.safetensors.index.json;
//   * each shard's header (the index's shards, else model.safetensors): bytes 0-7 for its
//     length N, then bytes 8 to 8+N-1, with HTTP Range requests. A server that answers a
//     Range request with the whole file is stopped at the bytes asked for.
// Files land in <cache>/models--org--name/snapshots/<commit>/, refs/main names the commit,
// and shard headers go to .gpumem/headers/<commit>/ (catalog/hf_cache.h). HF_HUB_OFFLINE
// refuses any request. Errors say which file and why: a 404 (no such repository or file), a
// 401/403 (a gated or private repository: set HF_TOKEN), a refused connection.
#ifndef GPUMEM_HUB_HUB_DOWNLOAD_H_
#define GPUMEM_HUB_HUB_DOWNLOAD_H_

#include <string>

#include "catalog/model_reference.h"

namespace gpumem {

class CurlHubFetcher final : public HubFetcher {
 public:
  Result<std::string> fetch(const std::string& repo_id, const HubSettings& settings) const override;
};

}  // namespace gpumem

#endif  // GPUMEM_HUB_HUB_DOWNLOAD_H_
