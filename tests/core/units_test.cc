#include "core/units.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpumem {
namespace {

TEST(Units, ConstructorsAreExact) {
  EXPECT_EQ(kib(3).value(), 3'072);
  EXPECT_EQ(mib(2).value(), 2'097'152);
  EXPECT_EQ(gib(93).value(), 99'857'989'632);
}

TEST(Units, IntegerArithmetic) {
  EXPECT_EQ((mib(20) * 80).value(), 1'677'721'600);
  EXPECT_EQ((3 * kib(1)).value(), 3'072);
  EXPECT_EQ(gib(1) / mib(1), 1024);
  EXPECT_EQ((mib(10) / 4).value(), 2'621'440);
  EXPECT_EQ((mib(3) - kib(1)).value(), 3'144'704);
  const std::int64_t layers = 80;
  EXPECT_EQ((mib(2) * layers).value(), 167'772'160);
  EXPECT_EQ((layers * mib(2)).value(), 167'772'160);
}

TEST(Units, ProductsSaturateInsteadOfWrapping) {
  // 2^40 x 2^40 used to wrap to 0 (and a context of 2^62 tokens to a small request table).
  EXPECT_EQ((bytes(std::int64_t{1} << 40) * (std::int64_t{1} << 40)).value(), kSizeCeiling);
  EXPECT_EQ((bytes(4) * (std::int64_t{1} << 61)).value(), kSizeCeiling);
  EXPECT_EQ((bytes(-4) * (std::int64_t{1} << 61)).value(), -kSizeCeiling);
  EXPECT_EQ((3 * bytes(std::int64_t{1} << 62)).value(), kSizeCeiling);
  EXPECT_EQ((bytes(2) * (std::int64_t{1} << 61)).value(), kSizeCeiling);  // exactly the ceiling
  // Rounding the ceiling up to a page still fits int64.
  EXPECT_EQ(round_up(bytes(kSizeCeiling - 1), mib(2)).value(), kSizeCeiling);
}

TEST(Units, RoundUp) {
  EXPECT_EQ(round_up(bytes(262'668'288), mib(2)).value(), 264'241'152);  // 250.5 -> 252 MiB
  EXPECT_EQ(round_up(mib(2), mib(2)).value(), 2'097'152);
  EXPECT_EQ(round_up(bytes(1), mib(2)).value(), 2'097'152);
  EXPECT_EQ(round_up(bytes(0), mib(2)).value(), 0);
}

TEST(Units, EngineGiBConversionsMatchPython) {
  // Python: 99857989632 / (1 << 30) == 93.0; int(34.655 * (1 << 30)) == 37210522910
  EXPECT_EQ(to_engine_gib(gib(93)).value(), 93.0);
  EXPECT_EQ(to_engine_gib(bytes(1)).value(), 1.0 / 1073741824.0);
  EXPECT_EQ(truncate_to_bytes(engine_gib(34.655)).value(), 37'210'522'910);
  EXPECT_EQ(truncate_to_bytes(engine_gib(-0.5)).value(), -536'870'912);
}

TEST(Units, Float32RoundTripMatchesTorch) {
  // torch.tensor(150_000_000_005, dtype=torch.float32).item() == 149999992832.0
  EXPECT_EQ(through_float32(bytes(150'000'000'005)).value(), 149'999'992'832);
  // Between 64 and 128 GiB float32 steps are 8 KiB.
  EXPECT_EQ(through_float32(bytes(80'000'000'000 + 4'095)).value(), 80'000'000'000);
  EXPECT_EQ(through_float32(gib(93)).value(), gib(93).value());
}

TEST(Units, Formatting) {
  EXPECT_EQ(format_bytes(bytes(17'640'734'720)), "17,640,734,720 B");
  EXPECT_EQ(format_bytes(bytes(-1'234)), "-1,234 B");
  EXPECT_EQ(format_bytes(bytes(0)), "0 B");
  EXPECT_EQ(format_mib(bytes(262'668'288)), "250.50 MiB");
  EXPECT_EQ(format_mib(mib(16'892)), "16,892.00 MiB");
  EXPECT_EQ(format_mib(bytes(-3'145'728)), "-3.00 MiB");
  // |v| x 100 used to wrap above about 82 PiB.
  EXPECT_EQ(format_mib(bytes(kSizeCeiling)), "4,398,046,511,104.00 MiB");
  EXPECT_EQ(format_mib(bytes(std::numeric_limits<std::int64_t>::min())),
            "-8,796,093,022,208.00 MiB");
  EXPECT_EQ(format_gib2(engine_gib(16.494662)), "16.49");
  EXPECT_EQ(format_gib2(engine_gib(17.325)), "17.32");  // binary value is below .325
}

}  // namespace
}  // namespace gpumem
