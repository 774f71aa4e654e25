#include "catalog/safetensors.h"

#include <gtest/gtest.h>

#include "support/hub_fixture.h"

namespace gpumem {
namespace {

const std::vector<FixtureTensor> kShard1 = {
    {"model.embed_tokens.weight", "BF16", {8, 4}, 64},
    {"model.norm.weight", "BF16", {4}, 8},
};
const std::vector<FixtureTensor> kShard2 = {
    {"lm_head.weight", "F8_E4M3", {8, 4}, 32},
};

TEST(Safetensors, ParsesAHeader) {
  Result<std::vector<SafetensorsTensor>> t =
      parse_safetensors_header(safetensors_header_json(kShard1), "a.safetensors");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0], (SafetensorsTensor{"model.embed_tokens.weight", "BF16", {8, 4}, 64}));
  EXPECT_EQ((*t)[1], (SafetensorsTensor{"model.norm.weight", "BF16", {4}, 8}));
}

TEST(Safetensors, HeaderLengthIsLittleEndianAndBounded) {
  const std::string prefix = safetensors_prefix(kShard1);
  Result<std::uint64_t> n = safetensors_header_length(prefix, "a");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, prefix.size() - 8);
  EXPECT_EQ(safetensors_header_length(std::string(8, '\0'), "a").status().message(),
            "a: a safetensors header of 0 bytes; the format allows 1 to 100000000");
  EXPECT_EQ(safetensors_header_length("abc", "a").status().message(),
            "a: shorter than a safetensors header");
}

TEST(Safetensors, MalformedHeadersAreErrors) {
  EXPECT_EQ(parse_safetensors_header("[1]", "a").status().message(),
            "a: the safetensors header is not a JSON object");
  EXPECT_EQ(
      parse_safetensors_header("{\"x\":{\"dtype\":\"F32\",\"shape\":[1]}}", "a").status().message(),
      "a: tensor 'x' needs a dtype string, a shape list and two data_offsets");
  EXPECT_EQ(parse_safetensors_header(
                "{\"x\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", "a")
                .status()
                .message(),
            "a: tensor 'x' has a shape entry that is not a non-negative integer");
  EXPECT_EQ(parse_safetensors_header(
                "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", "a")
                .status()
                .message(),
            "a: tensor 'x' has data_offsets that are not [begin, end]");
}

TEST(Safetensors, IndexNamesShardsAndTotalSize) {
  Result<SafetensorsIndex> i = parse_safetensors_index(
      R"({"metadata": {"total_size": 104}, "weight_map": {"a": "s2", "b": "s1", "c": "s2"}})",
      "index.json");
  ASSERT_TRUE(i.ok()) << i.status().message();
  EXPECT_EQ(i->shards, (std::vector<std::string>{"s1", "s2"}));
  EXPECT_EQ(i->total_size, 104);
  EXPECT_EQ(
      parse_safetensors_index(R"({"weight_map": {"a": "../x"}})", "index.json").status().message(),
      "index.json: 'weight_map' names shard '../x', which is not a file of the "
      "checkpoint's directory");
  EXPECT_EQ(parse_safetensors_index("{}", "index.json").status().message(),
            "index.json: a safetensors index needs a 'weight_map' object");
}

TEST(Safetensors, ReadsShardsAndStoredHeaders) {
  const std::filesystem::path dir = fresh_dir("safetensors_checkpoint");
  write_text(dir / "model.safetensors.index.json",
             R"({"metadata": {"total_size": 104}, "weight_map": {)"
             R"("model.embed_tokens.weight": "m-1.safetensors", "model.norm.weight": )"
             R"("m-1.safetensors", "lm_head.weight": "m-2.safetensors"}})");
  // The first shard is a real file (its data cut off: only the header is read); the second
  // only has its header stored elsewhere, as a download keeps it.
  write_text(dir / "m-1.safetensors", safetensors_prefix(kShard1) + "data");
  const std::filesystem::path stored = fresh_dir("safetensors_stored");
  Result<std::optional<SafetensorsCheckpoint>> missing =
      read_safetensors_checkpoint(dir.string(), stored.string());
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);  // a shard's header is not at hand
  write_text(stored / "m-2.safetensors", safetensors_prefix(kShard2));
  Result<std::optional<SafetensorsCheckpoint>> c =
      read_safetensors_checkpoint(dir.string(), stored.string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(*c);
  EXPECT_EQ((*c)->shards, 2);
  EXPECT_EQ((*c)->index_total_size, 104);
  ASSERT_EQ((*c)->tensors.size(), 3u);
  EXPECT_EQ((*c)->tensors[0].name, "lm_head.weight");
  EXPECT_EQ((*c)->tensors[2].name, "model.norm.weight");
}

TEST(Safetensors, ASingleFileCheckpointAndNone) {
  const std::filesystem::path dir = fresh_dir("safetensors_single");
  Result<std::optional<SafetensorsCheckpoint>> none = read_safetensors_checkpoint(dir.string(), "");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
  write_text(dir / "model.safetensors", safetensors_prefix(kShard2));
  Result<std::optional<SafetensorsCheckpoint>> c = read_safetensors_checkpoint(dir.string(), "");
  ASSERT_TRUE(c.ok() && *c);
  EXPECT_EQ((*c)->shards, 1);
  EXPECT_FALSE((*c)->index_total_size);
  write_text(dir / "model.safetensors", std::string("\x05\0\0\0\0\0\0\0{", 9));
  EXPECT_EQ(read_safetensors_checkpoint(dir.string(), "").status().message(),
            (dir / "model.safetensors").string() +
                ": the safetensors header is cut short (1 of 5 bytes)");
}

}  // namespace
}  // namespace gpumem
