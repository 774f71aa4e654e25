#include "core/size_parse.h"

#include <gtest/gtest.h>

namespace gpumem {
namespace {

std::int64_t parsed(const char* text) {
  Result<Bytes> r = parse_size(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().message();
  return r.ok() ? r->value() : -1;
}

std::string error_of(const char* text) {
  Result<Bytes> r = parse_size(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(ParseSize, EveryDecimalSuffix) {
  EXPECT_EQ(parsed("17B"), 17);
  EXPECT_EQ(parsed("3KB"), 3'000);
  EXPECT_EQ(parsed("5MB"), 5'000'000);
  EXPECT_EQ(parsed("96GB"), 96'000'000'000);
  EXPECT_EQ(parsed("2TB"), 2'000'000'000'000);
}

TEST(ParseSize, EveryBinarySuffix) {
  EXPECT_EQ(parsed("3KiB"), 3'072);
  EXPECT_EQ(parsed("97887MiB"), 102'641'958'912);
  EXPECT_EQ(parsed("93GiB"), 99'857'989'632);
  EXPECT_EQ(parsed("1TiB"), 1'099'511'627'776);
}

TEST(ParseSize, DecimalsAreExact) {
  EXPECT_EQ(parsed("0.5GiB"), 536'870'912);
  EXPECT_EQ(parsed("93.00GiB"), 99'857'989'632);
  EXPECT_EQ(parsed("1.5GB"), 1'500'000'000);
  EXPECT_EQ(parsed("0.001KB"), 1);
  EXPECT_EQ(parsed("16.49GiB"), 17'706'002'678);  // 17706002677.76 rounds to nearest
}

TEST(ParseSize, FractionalBytesRoundToNearestHalvesUp) {
  EXPECT_EQ(parsed("0.3KiB"), 307);   // 307.2
  EXPECT_EQ(parsed("0.7KiB"), 717);   // 716.8
  EXPECT_EQ(parsed("1.5B"), 2);       // half rounds up
  EXPECT_EQ(parsed("2.49B"), 2);
  EXPECT_EQ(parsed("0.0005KB"), 1);   // 0.5 B
  EXPECT_EQ(parsed("0.0004KB"), 0);   // 0.4 B
}

TEST(ParseSize, SpacesAroundAndBeforeUnit) {
  EXPECT_EQ(parsed(" 8 MiB "), 8'388'608);
}

TEST(ParseSize, Errors) {
  EXPECT_EQ(error_of("96"),
            "size '96' has no unit; write it with one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB "
            "(e.g. 96GiB)");
  EXPECT_EQ(error_of("96gb"), "unknown size unit 'gb' in '96gb'; did you mean 'GB'?");
  EXPECT_EQ(error_of("96Gib"), "unknown size unit 'Gib' in '96Gib'; did you mean 'GiB'?");
  EXPECT_EQ(error_of("-1GiB"), "negative size '-1GiB'");
  EXPECT_EQ(error_of("GiB"), "size 'GiB' does not start with a number");
  EXPECT_EQ(error_of(""), "empty size; write a number and a unit, e.g. 80GiB");
  EXPECT_EQ(error_of("1e3MB"), "unknown size unit 'e3MB' in '1e3MB'; did you mean 'MB'?");
  EXPECT_EQ(error_of("9000000TiB"), "size '9000000TiB' is too large");
  EXPECT_EQ(error_of("1.2.3GB"), "unknown size unit '.3GB' in '1.2.3GB'; did you mean 'GB'?");
}

}  // namespace
}  // namespace gpumem
