#include "hub/hub_download.h"

#include <gtest/gtest.h>

#include "catalog/model_catalog.h"
#include "core/atomic_file.h"
#include "support/fake_hub.h"
#include "support/hub_fixture.h"

namespace gpumem {
namespace {

const std::string kRepo = "someorg/Tiny-Model";
const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";
const std::string kConfig = *read_file(
    GPUMEM_SOURCE_DIR "/tests/data/qwen2.5-7b-instruct/config.json", InputKind::kModelConfig);

const std::vector<FixtureTensor> kShard1 = {{"model.embed_tokens.weight", "BF16", {8, 4}, 64}};
const std::vector<FixtureTensor> kShard2 = {{"lm_head.weight", "BF16", {8, 4}, 64}};

HubSettings settings_for(const FakeHub& hub, const std::string& cache) {
  HubSettings s;
  s.cache_dir = cache;
  s.endpoint = hub.endpoint();
  s.download = true;
  return s;
}

void serve_sharded_model(FakeHub& hub) {
  hub.add_file(kRepo, kCommit, "config.json", kConfig);
  hub.add_file(kRepo, kCommit, "generation_config.json", "{\"do_sample\": true}");
  hub.add_file(kRepo, kCommit, "model.safetensors.index.json",
               R"({"metadata": {"total_size": 128}, "weight_map": {)"
               R"("model.embed_tokens.weight": "model-00001-of-00002.safetensors", )"
               R"("lm_head.weight": "model-00002-of-00002.safetensors"}})");
  // The shards hold their header and then (here, made-up) tensor data.
  hub.add_file(kRepo, kCommit, "model-00001-of-00002.safetensors",
               safetensors_prefix(kShard1) + std::string(64, 'x'));
  hub.add_file(kRepo, kCommit, "model-00002-of-00002.safetensors",
               safetensors_prefix(kShard2) + std::string(64, 'y'));
}

TEST(HubDownload, FetchesConfigsAndShardHeadersIntoTheCacheLayout) {
  FakeHub hub;
  serve_sharded_model(hub);
  const std::filesystem::path cache = fresh_dir("hub_download_layout");
  HubSettings s = settings_for(hub, cache.string());
  s.token = "hf_secret";
  Result<std::string> snapshot = CurlHubFetcher().fetch(kRepo, s);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  const std::filesystem::path repo = cache / "models--someorg--Tiny-Model";
  EXPECT_EQ(*snapshot, (repo / "snapshots" / kCommit).string());
  EXPECT_EQ(*read_file((repo / "refs" / "main").string(), InputKind::kModelConfig), kCommit);
  EXPECT_EQ(*read_file(*snapshot + "/config.json", InputKind::kModelConfig), kConfig);
  EXPECT_TRUE(std::filesystem::exists(*snapshot + "/generation_config.json"));
  EXPECT_TRUE(std::filesystem::exists(*snapshot + "/model.safetensors.index.json"));
  EXPECT_FALSE(std::filesystem::exists(*snapshot + "/hf_quant_config.json"));
  // No partial shard in the snapshot: only the headers, kept beside it.
  EXPECT_FALSE(std::filesystem::exists(*snapshot + "/model-00001-of-00002.safetensors"));
  EXPECT_EQ(
      *read_file(
          (repo / ".gpumem" / "headers" / kCommit / "model-00002-of-00002.safetensors").string(),
          InputKind::kModelConfig),
      safetensors_prefix(kShard2));

  // config.json at main, everything after it at the commit it named; headers by Range.
  const std::vector<FakeHub::Request> r = hub.requests();
  ASSERT_EQ(r.size(), 10u);
  EXPECT_EQ(r[0].path, "/someorg/Tiny-Model/resolve/main/config.json");
  EXPECT_EQ(r[0].authorization, "Bearer hf_secret");
  EXPECT_EQ(r[1].path, "/someorg/Tiny-Model/resolve/" + kCommit + "/hf_quant_config.json");
  EXPECT_EQ(r[6].path,
            "/someorg/Tiny-Model/resolve/" + kCommit + "/model-00001-of-00002.safetensors");
  EXPECT_EQ(r[6].range, "bytes=0-7");
  EXPECT_EQ(r[7].range,
            "bytes=8-" + std::to_string(8 + safetensors_header_json(kShard1).size() - 1));

  // The catalog reads the downloaded snapshot, headers included.
  Diagnostics diags;
  Result<ResolvedModel> m =
      ModelCatalog::open(GPUMEM_SOURCE_DIR "/model/llm", {s, nullptr})->resolve(kRepo, "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_TRUE(m->checkpoint);
  EXPECT_EQ(m->checkpoint->shards, 2);
  EXPECT_EQ(m->checkpoint->index_total_size, 128);
  EXPECT_EQ(m->checkpoint->tensors.size(), 2u);
}

TEST(HubDownload, ASingleFileCheckpoint) {
  FakeHub hub;
  hub.add_file(kRepo, kCommit, "config.json", kConfig);
  hub.add_file(kRepo, kCommit, "model.safetensors", safetensors_prefix(kShard1) + "data");
  const std::filesystem::path cache = fresh_dir("hub_download_single");
  Result<std::string> snapshot = CurlHubFetcher().fetch(kRepo, settings_for(hub, cache.string()));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  EXPECT_TRUE(std::filesystem::exists(cache / "models--someorg--Tiny-Model" / ".gpumem" /
                                      "headers" / kCommit / "model.safetensors"));
}

TEST(HubDownload, ErrorsSayWhatFailed) {
  FakeHub hub;
  const std::filesystem::path cache = fresh_dir("hub_download_errors");
  const HubSettings s = settings_for(hub, cache.string());
  EXPECT_EQ(CurlHubFetcher().fetch("someorg/nothing", s).status().message(),
            "someorg/nothing: " + hub.endpoint() +
                "/someorg/nothing/resolve/main/config.json is not on the Hub (HTTP 404): no such "
                "repository, revision or file");
  hub.answer_all(401);
  EXPECT_EQ(CurlHubFetcher().fetch(kRepo, s).status().message(),
            kRepo + ": " + hub.endpoint() + "/" + kRepo +
                "/resolve/main/config.json is refused (HTTP 401): the repository is gated or "
                "private; set HF_TOKEN to a token that may read it");
  // Nothing was written for either.
  EXPECT_TRUE(std::filesystem::is_empty(cache));

  HubSettings offline = s;
  offline.offline = true;
  EXPECT_EQ(CurlHubFetcher().fetch(kRepo, offline).status().message(),
            kRepo + ": HF_HUB_OFFLINE is set: gpumem does not download it");

  HubSettings closed = s;
  closed.endpoint = "http://127.0.0.1:1";
  // libcurl's own words follow: "Couldn't connect to server".
  EXPECT_EQ(CurlHubFetcher().fetch(kRepo, closed).status().message(),
            kRepo + ": cannot fetch http://127.0.0.1:1/" + kRepo +
                "/resolve/main/config.json: Couldn't connect to server");
}

TEST(HubDownload, AShardMissingFromTheHubFailsTheDownload) {
  FakeHub hub;
  hub.add_file(kRepo, kCommit, "config.json", kConfig);
  hub.add_file(kRepo, kCommit, "model.safetensors.index.json",
               R"({"weight_map": {"a": "model-00001-of-00001.safetensors"}})");
  const std::filesystem::path cache = fresh_dir("hub_download_missing_shard");
  EXPECT_EQ(CurlHubFetcher().fetch(kRepo, settings_for(hub, cache.string())).status().message(),
            kRepo + ": " + hub.endpoint() + "/" + kRepo + "/resolve/" + kCommit +
                "/model-00001-of-00001.safetensors is not on the Hub (HTTP 404): no such "
                "repository, revision or file");
  EXPECT_FALSE(std::filesystem::exists(cache / "models--someorg--Tiny-Model" / "refs" / "main"));
}

TEST(HubDownload, AServerIgnoringRangesIsStoppedAtTheHeader) {
  FakeHub hub;
  hub.add_file(kRepo, kCommit, "config.json", kConfig);
  hub.add_file(kRepo, kCommit, "model.safetensors",
               safetensors_prefix(kShard1) + std::string(1 << 20, 'z'));
  hub.ignore_ranges();
  const std::filesystem::path cache = fresh_dir("hub_download_no_ranges");
  // The first range starts at 0, so the whole file's beginning serves it; the second does not.
  EXPECT_EQ(CurlHubFetcher().fetch(kRepo, settings_for(hub, cache.string())).status().message(),
            kRepo + ": " + hub.endpoint() + "/" + kRepo + "/resolve/" + kCommit +
                "/model.safetensors ignored the Range request for its safetensors header");
}

}  // namespace
}  // namespace gpumem
