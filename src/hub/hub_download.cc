#include "hub/hub_download.h"

#include <cctype>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "catalog/hf_cache.h"
#include "catalog/safetensors.h"
#include "core/atomic_file.h"
#include "core/lower_case.h"
#include "hub/curl_library.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

// Files fetched when the repository has them, after config.json. Quantization configs:
// ModelOpt's hf_quant_config.json (sglang configs/model_config.py _parse_quant_hf_config),
// AutoGPTQ's quantize_config.json and AutoAWQ's quant_config.json (vllm
// model_executor/model_loader/weight_utils.py get_quant_config reads them when config.json
// has no quantization_config).
constexpr std::array<const char*, 5> kOptionalFiles = {
    "hf_quant_config.json", "quantize_config.json", "quant_config.json", "generation_config.json",
    "model.safetensors.index.json"};

struct Response {
  long status = 0;
  std::string body;
  std::string repo_commit;  // X-Repo-Commit of the first response that had one
  size_t limit = 0;
  bool overflow = false;  // the server sent more than `limit` bytes (the transfer was stopped)
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  const size_t n = size * count;
  if (r->body.size() + n > r->limit) {
    r->body.append(data, r->limit - r->body.size());
    r->overflow = true;
    return 0;  // stops the transfer (CURLE_WRITE_ERROR)
  }
  r->body.append(data, n);
  return n;
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  const size_t n = size * count;
  std::string line(data, n);
  constexpr std::string_view kName = "x-repo-commit:";
  if (r->repo_commit.empty() && line.size() > kName.size()) {
    if (equals_ignoring_case(line.substr(0, kName.size()), kName)) {
      std::string value = line.substr(kName.size());
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())) != 0) {
        value.erase(value.begin());
      }
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())) != 0) {
        value.pop_back();
      }
      r->repo_commit = value;
    }
  }
  return n;
}

struct Range {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};

class Session {
 public:
  Session(std::string repo_id, const HubSettings& settings)
      : repo_id_(std::move(repo_id)), settings_(settings) {}

  std::string url(const std::string& revision, const std::string& file) const {
    return settings_.endpoint + "/" + repo_id_ + "/resolve/" + revision + "/" + file;
  }

  // GET `url` (a part of it with `range`); at most `limit` bytes are kept.
  Result<Response> get(const std::string& url, std::optional<Range> range, size_t limit) const {
    Result<const CurlLibrary*> library = curl_library();
    if (!library.ok()) return library.status();
    const CurlLibrary& c = **library;
    CURL* curl = c.easy_init();
    if (curl == nullptr) return internal_error("libcurl could not start a transfer");
    struct Cleanup {
      const CurlLibrary& c;
      CURL* curl;
      curl_slist* headers = nullptr;
      ~Cleanup() {
        c.slist_free_all(headers);
        c.easy_cleanup(curl);
      }
    } cleanup{c, curl};
    Response r;
    r.limit = range ? static_cast<size_t>(range->count) : limit;
    if (!settings_.token.empty()) {
      const std::string auth = "Authorization: Bearer " + settings_.token;
      cleanup.headers = c.slist_append(cleanup.headers, auth.c_str());
    }
    std::string range_text;
    if (range) {
      range_text =
          std::to_string(range->first) + "-" + std::to_string(range->first + range->count - 1);
      c.easy_setopt(curl, CURLOPT_RANGE, range_text.c_str());
    }
    c.easy_setopt(curl, CURLOPT_URL, url.c_str());
    c.easy_setopt(curl, CURLOPT_HTTPHEADER, cleanup.headers);
    c.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    c.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    c.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    c.easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
    c.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    c.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
    // A transfer slower than 1 byte/s for 60 s is given up.
    c.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    c.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
    c.easy_setopt(curl, CURLOPT_USERAGENT, "gpumem");
    c.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    c.easy_setopt(curl, CURLOPT_WRITEDATA, &r);
    c.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    c.easy_setopt(curl, CURLOPT_HEADERDATA, &r);
    const CURLcode code = c.easy_perform(curl);
    c.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && r.overflow)) {
      return io_error(repo_id_ + ": cannot fetch " + url + ": " + c.easy_strerror(code));
    }
    if (r.overflow && !range) {
      return invalid_input(repo_id_ + ": " + url + " is larger than the " +
                           std::to_string(limit >> 20) + " MiB gpumem reads");
    }
    return r;
  }

  Status http_error(const Response& r, const std::string& url) const {
    const std::string code = std::to_string(r.status);
    if (r.status == 404) {
      return not_found(repo_id_ + ": " + url +
                       " is not on the Hub (HTTP 404): no such repository, "
                       "revision or file");
    }
    if (r.status == 401 || r.status == 403) {
      return invalid_input(repo_id_ + ": " + url + " is refused (HTTP " + code +
                           "): the repository is gated or private; set HF_TOKEN to a token that "
                           "may read it");
    }
    return io_error(repo_id_ + ": " + url + " answered HTTP " + code);
  }

  // A whole file; nullopt when the Hub has no such file (404) and `optional`.
  Result<std::optional<Response>> file(const std::string& revision, const std::string& name,
                                       bool optional) const {
    const std::string u = url(revision, name);
    Result<Response> r = get(u, std::nullopt, input_limit(InputKind::kModelConfig).max_bytes);
    if (!r.ok()) return r.status();
    if (r->status == 200) return std::optional<Response>(std::move(*r));
    if (optional && r->status == 404) return std::optional<Response>();
    return http_error(*r, u);
  }

  // Bytes [first, first + count) of a file, which must be that long.
  Result<std::string> part(const std::string& revision, const std::string& name,
                           std::uint64_t first, std::uint64_t count) const {
    const std::string u = url(revision, name);
    Result<Response> r = get(u, Range{first, count}, 0);
    if (!r.ok()) return r.status();
    if (r->status == 206 || (r->status == 200 && first == 0)) {
      // A 200 is the whole file from its start: the transfer was stopped at `count` bytes.
      if (r->body.size() != count) {
        return invalid_input(repo_id_ + ": " + u + " is shorter than its safetensors header says");
      }
      return std::move(r->body);
    }
    if (r->status == 200) {
      return invalid_input(repo_id_ + ": " + u +
                           " ignored the Range request for its safetensors header");
    }
    return http_error(*r, u);
  }

 private:
  std::string repo_id_;
  const HubSettings& settings_;
};

bool safe_commit(const std::string& commit) {
  if (commit.empty() || commit.size() > 64) return false;
  for (char c : commit) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

Status make_directories(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error(dir.string() + ": cannot create the directory: " + ec.message());
  return Status::ok_status();
}

}  // namespace

Result<std::string> CurlHubFetcher::fetch(const std::string& repo_id,
                                          const HubSettings& settings) const {
  if (settings.offline) {
    return invalid_input(repo_id + ": HF_HUB_OFFLINE is set: gpumem does not download it");
  }
  if (!is_hub_repo_id(repo_id)) {
    return invalid_input("'" + repo_id + "' is not a Hugging Face repository id (org/name)");
  }
  if (settings.cache_dir.empty()) {
    return invalid_input(repo_id + ": no Hugging Face cache directory to download into");
  }
  const Session hub(repo_id, settings);
  Result<std::optional<Response>> config = hub.file("main", "config.json", false);
  if (!config.ok()) return config.status();
  const std::string commit = (*config)->repo_commit;
  if (!safe_commit(commit)) {
    return invalid_input(repo_id + ": " + hub.url("main", "config.json") +
                         (commit.empty()
                              ? " gave no X-Repo-Commit header"
                              : " gave X-Repo-Commit '" + commit + "', which is not a commit id") +
                         ", so the snapshot cannot be named");
  }
  std::vector<std::pair<std::string, std::string>> files = {{"config.json", (*config)->body}};
  std::vector<std::string> shards = {"model.safetensors"};
  for (const char* name : kOptionalFiles) {
    Result<std::optional<Response>> f = hub.file(commit, name, true);
    if (!f.ok()) return f.status();
    if (!*f) continue;
    if (std::string_view(name) == "model.safetensors.index.json") {
      Result<SafetensorsIndex> index = parse_safetensors_index((*f)->body, hub.url(commit, name));
      if (!index.ok()) return index.status();
      shards = index->shards;
    }
    files.emplace_back(name, std::move((*f)->body));
  }
  std::vector<std::pair<std::string, std::string>> headers;
  for (const std::string& shard : shards) {
    Result<std::string> prefix = hub.part(commit, shard, 0, 8);
    if (!prefix.ok()) return prefix.status();
    Result<std::uint64_t> n = safetensors_header_length(*prefix, hub.url(commit, shard));
    if (!n.ok()) return n.status();
    Result<std::string> header = hub.part(commit, shard, 8, *n);
    if (!header.ok()) return header.status();
    Result<std::vector<SafetensorsTensor>> tensors =
        parse_safetensors_header(*header, hub.url(commit, shard));
    if (!tensors.ok()) return tensors.status();
    headers.emplace_back(shard, *prefix + *header);
  }

  const fs::path repo = fs::path(settings.cache_dir) / hub_repo_folder(repo_id);
  const fs::path snapshot = repo / "snapshots" / commit;
  const fs::path stored = stored_headers_dir(snapshot.string());
  for (const fs::path& dir : {snapshot, stored, repo / "refs"}) {
    GPUMEM_RETURN_IF_ERROR(make_directories(dir));
  }
  for (const auto& [name, text] : files) {
    GPUMEM_RETURN_IF_ERROR(write_file_atomically((snapshot / name).string(), text));
  }
  for (const auto& [shard, bytes] : headers) {
    GPUMEM_RETURN_IF_ERROR(write_file_atomically((stored / shard).string(), bytes));
  }
  // The ref last: a download cut short leaves no snapshot that looks complete.
  GPUMEM_RETURN_IF_ERROR(write_file_atomically((repo / "refs" / "main").string(), commit));
  return snapshot.string();
}

}  // namespace gpumem
