#include "catalog/hf_cache.h"

#include <gtest/gtest.h>

#include <map>

#include "support/hub_fixture.h"

namespace gpumem {
namespace {

HubSettings settings_with(const std::map<std::string, std::string>& env) {
  return hub_settings_from([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

// huggingface_hub constants.py: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else HF_HOME/hub,
// HF_HOME defaulting to $XDG_CACHE_HOME/huggingface and that to ~/.cache/huggingface.
TEST(HubSettings, CacheDirectoryFollowsHuggingfaceHub) {
  EXPECT_EQ(settings_with({{"HOME", "/home/u"}}).cache_dir, "/home/u/.cache/huggingface/hub");
  EXPECT_EQ(settings_with({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/x"}}).cache_dir,
            "/x/huggingface/hub");
  EXPECT_EQ(settings_with({{"HOME", "/home/u"}, {"HF_HOME", "/hf"}}).cache_dir, "/hf/hub");
  EXPECT_EQ(settings_with({{"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}}).cache_dir,
            "/legacy");
  EXPECT_EQ(settings_with(
                {{"HF_HOME", "/hf"}, {"HUGGINGFACE_HUB_CACHE", "/legacy"}, {"HF_HUB_CACHE", "/c"}})
                .cache_dir,
            "/c");
}

TEST(HubSettings, EndpointTokenOfflineAndDownload) {
  const HubSettings none = settings_with({});
  EXPECT_EQ(none.endpoint, "https://huggingface.co");
  EXPECT_EQ(none.token, "");
  EXPECT_FALSE(none.offline);
  EXPECT_FALSE(none.download);
  const HubSettings s = settings_with({{"HF_ENDPOINT", "http://127.0.0.1:8080/"},
                                       {"HF_TOKEN", "hf_x"},
                                       {"HF_HUB_OFFLINE", "yes"},
                                       {"GPUMEM_DOWNLOAD", "1"}});
  EXPECT_EQ(s.endpoint, "http://127.0.0.1:8080");
  EXPECT_EQ(s.token, "hf_x");
  EXPECT_TRUE(s.offline);
  EXPECT_TRUE(s.download);
  EXPECT_FALSE(settings_with({{"HF_HUB_OFFLINE", "0"}}).offline);
  EXPECT_TRUE(settings_with({{"HF_HUB_OFFLINE", "TRUE"}}).offline);
}

TEST(HubCache, RepositoryIdsAndFolders) {
  EXPECT_TRUE(is_hub_repo_id("Qwen/Qwen3-8B"));
  EXPECT_TRUE(is_hub_repo_id("deepseek-ai/DeepSeek-V3.1"));
  EXPECT_FALSE(is_hub_repo_id("qwen3-8b"));
  EXPECT_FALSE(is_hub_repo_id("a/b/c"));
  EXPECT_FALSE(is_hub_repo_id("./x"));
  EXPECT_FALSE(is_hub_repo_id("/abs"));
  EXPECT_FALSE(is_hub_repo_id("org/.hidden"));
  EXPECT_FALSE(is_hub_repo_id("org/a b"));
  EXPECT_EQ(hub_repo_folder("Qwen/Qwen3-8B"), "models--Qwen--Qwen3-8B");
}

TEST(HubCache, FindsTheSnapshotRefsMainNamesCaseInsensitively) {
  const std::filesystem::path cache = fresh_dir("hf_cache_lookup");
  const std::filesystem::path snapshot =
      cached_snapshot_with(cache, "models--Qwen--Qwen3-8B", "abc123", "{}");
  std::optional<std::string> repo = cached_repo_dir(cache.string(), "qwen/qwen3-8b");
  ASSERT_TRUE(repo);
  EXPECT_EQ(*repo, (cache / "models--Qwen--Qwen3-8B").string());
  EXPECT_EQ(cached_snapshot(*repo), snapshot.string());
  EXPECT_EQ(snapshot_commit(snapshot.string()), "abc123");
  EXPECT_EQ(stored_headers_dir(snapshot.string()),
            (cache / "models--Qwen--Qwen3-8B" / ".gpumem" / "headers" / "abc123").string());
  EXPECT_FALSE(cached_repo_dir(cache.string(), "Qwen/Qwen3-14B"));

  // A ref naming a missing snapshot, a ref that tries to leave snapshots/, no ref at all.
  write_text(cache / "models--a--dangling" / "refs" / "main", "deadbeef\n");
  write_text(cache / "models--a--escape" / "refs" / "main", "../../x");
  std::filesystem::create_directories(cache / "models--a--noref" / "snapshots" / "x");
  EXPECT_FALSE(cached_snapshot((cache / "models--a--dangling").string()));
  EXPECT_FALSE(cached_snapshot((cache / "models--a--escape").string()));
  EXPECT_FALSE(cached_snapshot((cache / "models--a--noref").string()));
}

TEST(HubCache, ListsEveryModelFolder) {
  const std::filesystem::path cache = fresh_dir("hf_cache_list");
  cached_snapshot_with(cache, "models--Qwen--Qwen3-8B", "abc", "{}");
  write_text(cache / "models--a--dangling" / "refs" / "main", "deadbeef");
  std::filesystem::create_directories(cache / "datasets--x--y");
  std::filesystem::create_directories(cache / "models--gpt2");
  const std::vector<CachedModel> models = list_cached_models(cache.string());
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].repo_id, "Qwen/Qwen3-8B");
  EXPECT_TRUE(models[0].has_config);
  EXPECT_EQ(models[1].repo_id, "a/dangling");
  EXPECT_EQ(models[1].snapshot, "");
  EXPECT_TRUE(list_cached_models((cache / "nowhere").string()).empty());
}

}  // namespace
}  // namespace gpumem
