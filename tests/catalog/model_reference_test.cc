#include "catalog/model_reference.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "catalog/model_catalog.h"
#include "core/atomic_file.h"
#include "support/hub_fixture.h"

namespace gpumem {
namespace {

const std::string kModelDir = GPUMEM_SOURCE_DIR "/model/llm";
const std::string kQwenConfig = GPUMEM_SOURCE_DIR "/tests/data/qwen2.5-7b-instruct/config.json";

std::string qwen_config_text() { return *read_file(kQwenConfig, InputKind::kModelConfig); }

ModelCatalog catalog_with(HubSettings settings, std::shared_ptr<const HubFetcher> fetcher = {}) {
  return *ModelCatalog::open(kModelDir, ModelHub{std::move(settings), std::move(fetcher)});
}

// A fetcher that writes one snapshot into the cache, and counts its calls.
class FakeFetcher final : public HubFetcher {
 public:
  Result<std::string> fetch(const std::string& repo_id, const HubSettings& s) const override {
    ++calls;
    if (repo_id != "someorg/tiny") return not_found(repo_id + ": HTTP 404");
    return cached_snapshot_with(s.cache_dir, hub_repo_folder(repo_id), "c0ffee", qwen_config_text())
        .string();
  }
  mutable int calls = 0;
};

TEST(ModelReference, ACatalogSlug) {
  Diagnostics diags;
  Result<ResolvedModel> m = catalog_with({}).resolve("qwen3-8b", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->architecture.name, "qwen3-8b");
  EXPECT_EQ(m->identity, "catalog qwen3-8b");
  EXPECT_EQ(m->origin, "catalog entry qwen3-8b");
  EXPECT_FALSE(m->checkpoint);
}

TEST(ModelReference, ARepositoryIdMatchesModelIdsCaseInsensitively) {
  Diagnostics diags;
  const ModelCatalog c = catalog_with({});
  Result<ResolvedModel> m = c.resolve("qwen/QWEN3-8b", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->identity, "catalog qwen3-8b");
  EXPECT_EQ(m->origin, "catalog entry qwen3-8b (repository id qwen/QWEN3-8b)");
  // model_id with a remark after the id ("x (also y)") and the entry's aliases.
  EXPECT_EQ(c.find_by_repo_id("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"),
            "eagle3-llama3.1-instruct-8b");
  for (const std::string& slug : c.slugs()) {
    Result<ModelEntry> e = c.find(slug, diags);
    ASSERT_TRUE(e.ok()) << slug;
    ASSERT_FALSE(e->repo_ids().empty()) << slug << " names no repository id";
    for (const std::string& id : e->repo_ids()) {
      Result<ResolvedModel> r = c.resolve(id, "", diags);
      ASSERT_TRUE(r.ok()) << id << ": " << r.status().message();
      EXPECT_EQ(r->identity, "catalog " + slug) << id;
    }
  }
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

TEST(ModelReference, APathToAConfigOrACheckpointDirectory) {
  Diagnostics diags;
  const ModelCatalog c = catalog_with({});
  Result<ResolvedModel> file = c.resolve(kQwenConfig, "", diags);
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->architecture.hf_architecture, "Qwen2ForCausalLM");
  EXPECT_EQ(file->origin, "config.json " + kQwenConfig);
  // Relative to the scenario that names it.
  Result<ResolvedModel> dir =
      c.resolve("../tests/data/qwen2.5-7b-instruct", GPUMEM_SOURCE_DIR "/scenarios/x.yaml", diags);
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(dir->identity, file->identity);
  EXPECT_EQ(c.resolve(GPUMEM_SOURCE_DIR "/tests", "", diags).status().message(),
            std::string(GPUMEM_SOURCE_DIR "/tests") + ": the directory holds no config.json");
  EXPECT_EQ(c.resolve("missing/config.json", "", diags).status().message(),
            "no Hugging Face config at 'missing/config.json'");
}

TEST(ModelReference, AnIdNotInTheCatalogIsReadFromTheHubCache) {
  const std::filesystem::path cache = fresh_dir("model_reference_cache");
  const std::filesystem::path snapshot = cached_snapshot_with(
      cache, "models--someorg--Qwen2.5-7B-Copy", "1234abcd", qwen_config_text());
  HubSettings s;
  s.cache_dir = cache.string();
  Diagnostics diags;
  Result<ResolvedModel> m = catalog_with(s).resolve("SomeOrg/qwen2.5-7b-copy", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->architecture.name, "SomeOrg/qwen2.5-7b-copy");
  EXPECT_EQ(m->origin, "Hugging Face cache snapshot " + snapshot.string());
  EXPECT_FALSE(m->checkpoint);  // no safetensors at hand

  // With its safetensors header, the checkpoint comes along.
  write_text(snapshot / "model.safetensors",
             safetensors_prefix({{"lm_head.weight", "BF16", {2, 2}, 8}}));
  Result<ResolvedModel> with = catalog_with(s).resolve("someorg/Qwen2.5-7B-Copy", "", diags);
  ASSERT_TRUE(with.ok()) << with.status().message();
  ASSERT_TRUE(with->checkpoint);
  EXPECT_EQ(with->checkpoint->tensors.size(), 1u);
}

// A repository id that no entry names is the catalog's bundled config (model/llm/configs), in
// any case, before the local Hugging Face cache: a cached copy of the same id is not read.
TEST(ModelReference, ABundledConfigIsFoundByItsRepositoryIdBeforeTheCache) {
  const std::filesystem::path cache = fresh_dir("model_reference_bundled");
  cached_snapshot_with(cache, "models--Qwen--Qwen2.5-32B-Instruct", "1234abcd", qwen_config_text());
  HubSettings s;
  s.cache_dir = cache.string();
  Diagnostics diags;
  Result<ResolvedModel> m = catalog_with(s).resolve("qwen/QWEN2.5-32b-instruct", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->origin,
            "bundled config " + kModelDir + "/configs/Qwen--Qwen2.5-32B-Instruct/config.json");
  EXPECT_EQ(m->architecture.name, "qwen/QWEN2.5-32b-instruct");
  EXPECT_EQ(m->architecture.hf_architecture, "Qwen2ForCausalLM");  // the cached copy is a 7B
  EXPECT_EQ(m->architecture.hidden_size, 5120);
  EXPECT_EQ(m->architecture.num_hidden_layers, 64);
  EXPECT_FALSE(m->checkpoint);
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

// Every bundled config has its source beside it, names no checkpoint an entry already
// describes, and is read as a downloaded snapshot would be: it loads, or its architecture is
// refused by name (never an unreadable file).
TEST(ModelReference, EveryBundledConfigIsSourcedAndLoadsOrIsRefusedByName) {
  const ModelCatalog c = catalog_with({});
  ASSERT_EQ(c.bundled_configs().size(), 106u);
  int loaded = 0;
  for (const ModelCatalog::BundledConfig& b : c.bundled_configs()) {
    const std::filesystem::path dir = std::filesystem::path(b.config_path).parent_path();
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / "SOURCE.md")) << b.repo_id;
    EXPECT_FALSE(c.find_by_repo_id(b.repo_id)) << b.repo_id << " is also a catalog entry";
    Diagnostics diags;
    Result<ResolvedModel> m = c.resolve(b.repo_id, "", diags);
    if (m.ok()) {
      ++loaded;
      continue;
    }
    const std::string text = diags.to_string();
    EXPECT_TRUE(text.find("is not modelled") != std::string::npos ||
                text.find("unknown architecture") != std::string::npos)
        << b.repo_id << ": " << text;
  }
  // The other 10 are refused by name: GLM-5.2 and GLM-5.2-FP8 (shared indexers), MiMo-V2.5
  // and MiMo-V2.5-Pro, MiniMax-M1, MiniMax-M3 and M3-MXFP8, Qwen3-Omni, Kimi-K3, DeepSeek-OCR.
  EXPECT_EQ(loaded, 96);
}

// Only a folder named "org--name" that holds a regular config.json is a bundled config; others
// under configs/ (no separator, no config.json, a config.json that is a directory) are not.
TEST(ModelReference, OnlyOrgNameFoldersWithAConfigAreBundled) {
  const std::filesystem::path dir = fresh_dir("model_reference_bundled_listing");
  write_text(dir / "configs" / "Org--Name" / "config.json", qwen_config_text());
  write_text(dir / "configs" / "noseparator" / "config.json", qwen_config_text());
  write_text(dir / "configs" / "a--nothing" / "README", "");
  std::filesystem::create_directories(dir / "configs" / "b--dir" / "config.json");
  Result<ModelCatalog> c = ModelCatalog::open(dir.string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->bundled_configs().size(), 1u);
  EXPECT_EQ(c->bundled_configs()[0].repo_id, "Org/Name");
  EXPECT_NE(c->find_bundled("org/NAME"), nullptr);
  EXPECT_EQ(c->find_bundled("b/dir"), nullptr);
}

// A repository id that no readable entry names is not looked up elsewhere while an entry
// cannot be read: it may be that entry's.
TEST(ModelReference, AnUnreadableEntryStopsTheLookupOfAnId) {
  const std::filesystem::path dir = fresh_dir("model_reference_unreadable");
  write_text(dir / "broken.yaml", "name: broken\nmodel_id: a/b\nconfig: {architectures: [X\n");
  write_text(dir / "configs" / "Org--Name" / "config.json", qwen_config_text());
  Result<ModelCatalog> c = ModelCatalog::open(dir.string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  Diagnostics diags;
  EXPECT_EQ(c->resolve("org/name", "", diags).status().message(),
            dir.string() +
                "/broken.yaml:4:1: YAML syntax error: end of sequence flow not found (a catalog "
                "entry gpumem cannot read, which may be the one 'org/name' names)");
}

TEST(ModelReference, UnknownNamesAndIdsGetADidYouMean) {
  const std::filesystem::path cache = fresh_dir("model_reference_unknown");
  HubSettings s;
  s.cache_dir = cache.string();
  Diagnostics diags;
  const ModelCatalog c = catalog_with(s);
  EXPECT_EQ(c.resolve("qwen3-8", "", diags).status().message(),
            "unknown model 'qwen3-8'; did you mean 'qwen3-8b'?");
  EXPECT_EQ(c.resolve("Qwen/Qwen3-8C", "", diags).status().message(),
            "unknown model 'Qwen/Qwen3-8C': neither the catalog nor the local Hugging Face cache "
            "has it; did you mean 'Qwen/Qwen3-8B'?");
  // Without a hub (a catalog alone): the name, and a suggestion.
  EXPECT_EQ(catalog_with({}).resolve("Qwen/Qwen3-8C", "", diags).status().message(),
            "unknown model 'Qwen/Qwen3-8C'; did you mean 'Qwen/Qwen3-8B'?");
  // Another organisation's copy of a catalog model: suggested by its name part.
  EXPECT_EQ(c.resolve("unsloth/Qwen3-235B-A22B", "", diags).status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.resolve("unsloth/Qwen3-235B-A22B", "", diags)
                .status()
                .message()
                .find("did you mean 'Qwen/Qwen3-235B-A22B'?"),
            std::string::npos);
  write_text(cache / "models--a--b" / "refs" / "main", "gone");
  EXPECT_EQ(c.resolve("a/b", "", diags).status().message(),
            "unknown model 'a/b': the catalog does not name it, and the Hugging Face cache holds " +
                (cache / "models--a--b").string() + " but its refs/main names no snapshot");
  EXPECT_TRUE(diags.empty());
}

// A checkpoint folder on the machine the launch runs on, not on this one, keeps the
// repository's name: the one entry (or bundled config) of that name answers, marked assumed.
TEST(ModelReference, APathNotOnThisMachineIsReadByItsFolderName) {
  Diagnostics diags;
  const ModelCatalog c = catalog_with({});
  Result<ResolvedModel> m = c.resolve("/data2/Qwen3-32B/", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->identity, "catalog qwen3-32b");
  EXPECT_EQ(m->assumed,
            "'/data2/Qwen3-32B/' is not on this machine; its folder name is that of "
            "Qwen/Qwen3-32B");
  // ModelScope writes a '.' of the name as '___'; an alias (the repository's old name) counts.
  m = c.resolve("/models/Meta-Llama-3___1-8B-Instruct", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->identity, "catalog llama-3.1-8b-instruct");
  // A name no entry has, a name that only contains one, and a slug, a repository id or a path
  // that exists are not assumed.
  EXPECT_EQ(c.resolve("/models/foo-Qwen3-32B", "", diags).status().message(),
            "unknown model '/models/foo-Qwen3-32B'");
  EXPECT_EQ(c.resolve("qwen3-32b", "", diags)->assumed, "");
  EXPECT_EQ(c.resolve("Qwen/Qwen3-32B", "", diags)->assumed, "");
  EXPECT_EQ(c.resolve(kQwenConfig, "", diags)->assumed, "");
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

TEST(ModelReference, DownloadsOnlyWhenAllowedAndNeverOffline) {
  const std::filesystem::path cache = fresh_dir("model_reference_download");
  HubSettings s;
  s.cache_dir = cache.string();
  auto fetcher = std::make_shared<FakeFetcher>();
  Diagnostics diags;
  // Where a fetcher is at hand, the message says how to download.
  EXPECT_EQ(catalog_with(s, fetcher).resolve("someorg/tiny", "", diags).status().message(),
            "unknown model 'someorg/tiny': neither the catalog nor the local Hugging Face cache "
            "has it (--download, or GPUMEM_DOWNLOAD=1, fetches its config from "
            "https://huggingface.co)");
  EXPECT_EQ(fetcher->calls, 0);

  s.download = true;
  s.offline = true;
  EXPECT_EQ(catalog_with(s, fetcher).resolve("someorg/tiny", "", diags).status().message(),
            "model 'someorg/tiny': neither the catalog nor the local Hugging Face cache has it, "
            "and HF_HUB_OFFLINE is set: gpumem does not download it");
  EXPECT_EQ(fetcher->calls, 0);

  s.offline = false;
  const ModelCatalog c = catalog_with(s, fetcher);
  Result<ResolvedModel> m = c.resolve("someorg/tiny", "", diags);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->origin, "downloaded into " +
                           (cache / "models--someorg--tiny" / "snapshots" / "c0ffee").string());
  // Resolved once per catalog; a new catalog finds it in the cache.
  ASSERT_TRUE(c.resolve("someorg/tiny", "", diags).ok());
  EXPECT_EQ(fetcher->calls, 1);
  Result<ResolvedModel> again = catalog_with(s, fetcher).resolve("someorg/tiny", "", diags);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->origin.substr(0, 27), "Hugging Face cache snapshot");
  EXPECT_EQ(fetcher->calls, 1);
  EXPECT_EQ(c.resolve("someorg/missing", "", diags).status().message(),
            "someorg/missing: HTTP 404");
}

}  // namespace
}  // namespace gpumem
