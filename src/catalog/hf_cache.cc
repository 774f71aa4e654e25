#include "catalog/hf_cache.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/directory.h"
#include "core/lower_case.h"

namespace gpumem {
namespace {

namespace fs = std::filesystem;

// huggingface_hub utils/_runtime.py _is_true: "1", "ON", "YES", "TRUE" in any case.
bool is_true(const char* value) {
  if (value == nullptr) return false;
  const std::string v = lower_case(value);
  return v == "1" || v == "on" || v == "yes" || v == "true";
}

std::string nonempty(const char* value) { return value != nullptr ? value : ""; }

bool repo_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

bool repo_part(std::string_view part) {
  if (part.empty() || part.size() > 96 || part.front() == '.' || part.front() == '-') return false;
  return std::all_of(part.begin(), part.end(), repo_name_char);
}

constexpr std::string_view kModelsPrefix = "models--";

}  // namespace

HubSettings hub_settings_from(const std::function<const char*(const char*)>& getenv) {
  HubSettings s;
  // huggingface_hub constants.py: HF_HOME, default_cache_path, HUGGINGFACE_HUB_CACHE,
  // HF_HUB_CACHE, HF_HUB_OFFLINE, ENDPOINT.
  std::string home = nonempty(getenv("HF_HOME"));
  if (home.empty()) {
    std::string xdg = nonempty(getenv("XDG_CACHE_HOME"));
    if (xdg.empty()) xdg = nonempty(getenv("HOME")) + "/.cache";
    home = xdg + "/huggingface";
  }
  s.cache_dir = nonempty(getenv("HF_HUB_CACHE"));
  if (s.cache_dir.empty()) s.cache_dir = nonempty(getenv("HUGGINGFACE_HUB_CACHE"));
  if (s.cache_dir.empty()) s.cache_dir = home + "/hub";
  if (std::string endpoint = nonempty(getenv("HF_ENDPOINT")); !endpoint.empty()) {
    while (endpoint.ends_with('/')) endpoint.pop_back();
    s.endpoint = endpoint;
  }
  s.token = nonempty(getenv("HF_TOKEN"));
  s.offline = is_true(getenv("HF_HUB_OFFLINE"));
  s.download = is_true(getenv("GPUMEM_DOWNLOAD"));
  return s;
}

HubSettings hub_settings_from_environment() {
  return hub_settings_from([](const char* name) { return std::getenv(name); });
}

bool is_hub_repo_id(std::string_view reference) {
  const size_t slash = reference.find('/');
  if (slash == std::string_view::npos) return false;
  return repo_part(reference.substr(0, slash)) && repo_part(reference.substr(slash + 1));
}

std::string repo_id_key(std::string_view repo_id) { return lower_case(repo_id); }

std::string hub_repo_folder(std::string_view repo_id) {
  // huggingface_hub file_download.py repo_folder_name: "models--" + id with "/" -> "--".
  std::string out(kModelsPrefix);
  for (char c : repo_id) {
    if (c == '/') {
      out += "--";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> repo_id_in_cache_path(std::string_view text) {
  for (size_t at = text.find(kModelsPrefix); at != std::string_view::npos;
       at = text.find(kModelsPrefix, at + 1)) {
    if (at > 0 && text[at - 1] != '/' && text[at - 1] != ' ' && text[at - 1] != '\'' &&
        text[at - 1] != '"') {
      continue;
    }
    const size_t start = at + kModelsPrefix.size();
    size_t end = start;
    while (end < text.size() && repo_name_char(text[end])) ++end;
    // huggingface_hub validate_repo_id forbids "--" inside an id, so the first one in the
    // folder's name is the '/' between owner and name.
    const std::string_view folder = text.substr(start, end - start);
    const size_t sep = folder.find("--");
    if (sep == std::string_view::npos) continue;
    std::string id = std::string(folder.substr(0, sep)) + "/" + std::string(folder.substr(sep + 2));
    if (is_hub_repo_id(id) && id.find("--") == std::string::npos) return id;
  }
  return std::nullopt;
}

std::optional<std::string> cached_repo_dir(const std::string& cache_dir, std::string_view repo_id) {
  const std::string want = hub_repo_folder(repo_id);
  const fs::path exact = fs::path(cache_dir) / want;
  if (is_directory_path(exact)) return exact.string();
  Result<std::vector<fs::path>> entries = list_directory(cache_dir);
  if (!entries.ok()) return std::nullopt;
  const std::string want_lower = lower_case(want);
  for (const fs::path& p : *entries) {
    if (lower_case(p.filename().string()) == want_lower && is_directory_path(p)) return p.string();
  }
  return std::nullopt;
}

std::optional<std::string> cached_snapshot(const std::string& repo_dir) {
  Result<std::string> ref = read_file(repo_dir + "/refs/main", InputKind::kModelConfig);
  if (!ref.ok()) return std::nullopt;
  std::string commit = *ref;
  while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.back())) != 0) {
    commit.pop_back();
  }
  if (commit.empty() || commit.find('/') != std::string::npos || commit == "." || commit == "..") {
    return std::nullopt;
  }
  const std::string snapshot = repo_dir + "/snapshots/" + commit;
  if (!is_directory_path(snapshot)) return std::nullopt;
  return snapshot;
}

std::string snapshot_commit(const std::string& snapshot_dir) {
  return fs::path(snapshot_dir).filename().string();
}

std::string stored_headers_dir(const std::string& snapshot_dir) {
  const fs::path snapshot(snapshot_dir);
  const fs::path repo = snapshot.parent_path().parent_path();
  return (repo / ".gpumem" / "headers" / snapshot.filename()).string();
}

std::vector<CachedModel> list_cached_models(const std::string& cache_dir) {
  std::vector<CachedModel> out;
  Result<std::vector<fs::path>> entries = list_directory(cache_dir);
  if (!entries.ok()) return out;
  for (const fs::path& p : *entries) {
    const std::string folder = p.filename().string();
    if (!folder.starts_with(kModelsPrefix) || !is_directory_path(p)) continue;
    std::string rest = folder.substr(kModelsPrefix.size());
    const size_t sep = rest.find("--");
    if (sep == std::string::npos) continue;  // a model without an org: not a repo id
    CachedModel m;
    m.repo_id = rest.substr(0, sep) + "/" + rest.substr(sep + 2);
    if (std::optional<std::string> snapshot = cached_snapshot(p.string())) {
      m.snapshot = *snapshot;
      m.has_config = is_regular_file_path(*snapshot + "/config.json");
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(),
            [](const CachedModel& a, const CachedModel& b) { return a.repo_id < b.repo_id; });
  return out;
}

}  // namespace gpumem
