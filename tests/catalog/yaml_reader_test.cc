#include "catalog/yaml_reader.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

YAML::Node parse(const std::string& text) {
  Result<YamlDocument> doc = parse_yaml("t.yaml", text);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc->root;
}

TEST(YamlReader, ReadsTypedValues) {
  Diagnostics diags;
  MapReader r("t.yaml", parse("n: 8\nx: 0.55\nb: true\ns: abc\nsz: 2GiB\n"), "'root'", diags);
  EXPECT_EQ(r.integer("n"), 8);
  EXPECT_EQ(r.number("x"), 0.55);
  EXPECT_EQ(r.boolean("b"), true);
  EXPECT_EQ(r.string("s"), "abc");
  EXPECT_EQ(r.size("sz")->value(), 2LL << 30);
  EXPECT_EQ(r.integer("absent"), std::nullopt);
  r.finish();
  EXPECT_TRUE(diags.empty()) << diags.to_string();
}

TEST(YamlReader, ReportsEveryErrorWithItsPlace) {
  Diagnostics diags;
  MapReader r("t.yaml",
              parse("count: eight\nsize: 96\nratio: nan\ngpuu: h200\ncount2: 1\ncount2: 2\n"),
              "'hardware'", diags);
  r.integer("count");
  r.size("size");
  r.number("ratio");
  r.string("gpu", /*required=*/true);
  r.integer("count2");
  r.finish();
  EXPECT_EQ(diags.to_string(),
            "t.yaml:1:8: 'count' must be an integer, got 'eight'\n"
            "t.yaml:2:7: 'size': size '96' has no unit; write it with one of B, KB, MB, GB, TB, "
            "KiB, MiB, GiB, TiB (e.g. 96GiB)\n"
            "t.yaml:3:8: 'ratio' must be a number, got 'nan'\n"
            "t.yaml:1:1: missing key 'gpu' in 'hardware'\n"
            "t.yaml:4:1: unknown key 'gpuu' in 'hardware'; did you mean 'gpu'?\n"
            "t.yaml:6:1: duplicate key 'count2' in 'hardware'\n");
}

TEST(YamlReader, NonMappingIsAnError) {
  Diagnostics diags;
  MapReader r("t.yaml", parse("hardware: [1, 2]\n")["hardware"], "'hardware'", diags);
  EXPECT_FALSE(r.valid());
  EXPECT_EQ(diags.to_string(), "t.yaml:1:11: 'hardware' must be a mapping, got a list\n");
}

TEST(YamlReader, SyntaxErrorHasLocation) {
  Result<YamlDocument> doc = parse_yaml("t.yaml", "a: [1, 2\nb: 3\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(),
            "t.yaml:2:2: YAML syntax error: end of sequence flow not found");
}

TEST(YamlReader, SyntaxErrorEscapesControlBytesOfTheInput) {
  // yaml-cpp quotes the bad escape's byte; a NUL used to end the message early (no newline).
  Result<YamlDocument> doc = parse_yaml("t.yaml", std::string("a: \"x\\\0y\"\n", 10));
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(),
            "t.yaml:1:8: YAML syntax error: unknown escape character: \\x00");
}

TEST(YamlReader, DeepNestingIsSaidAsSuch) {
  // yaml-cpp 0.7's depth guard stops at 500 nested nodes and calls that "bad file"; it marks
  // the end of the line (its scanner reads the whole flow before the parser nests).
  Result<YamlDocument> doc =
      parse_yaml("t.yaml", "a: " + std::string(3000, '[') + std::string(3000, ']') + "\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(),
            "t.yaml:1:6004: YAML syntax error: nesting deeper than 499 levels");
}

TEST(YamlReader, ASecondDocumentIsRefusedWhereItStarts) {
  // It used to be parsed and then ignored: a broken second document passed validate.
  Result<YamlDocument> doc = parse_yaml("t.yaml", "a: 1\n---\nb: [1\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(),
            "t.yaml:4:1: YAML syntax error: end of sequence flow not found");
  doc = parse_yaml("t.yaml", "a: 1\n---\nb: 2\n");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(),
            "t.yaml:3:1: a second YAML document starts here; gpumem reads one document per file "
            "(split it into files of their own)");
  // A document end marker alone starts no second document.
  EXPECT_TRUE(parse_yaml("t.yaml", "---\na: 1\n...\n").ok());
}

}  // namespace
}  // namespace gpumem

namespace gpumem {
namespace {

// yaml-cpp 0.7's LoadAll produced null documents without end on this text (the hf_config
// fuzz target's input, kept in its corpus): only two documents are ever parsed now.
TEST(YamlReader, MalformedTextEndsWithAnError) {
  const Result<YamlDocument> doc = parse_yaml("c.json", "{\"a\": {\n  \"b\": 1\n  }\xff\xff }\n");
  EXPECT_FALSE(doc.ok());
}

}  // namespace
}  // namespace gpumem
