#include "runtime/ledger_json.h"

#include <gtest/gtest.h>

#include "core/json_location.h"
#include "runtime/json_integer.h"

namespace gpumem {
namespace {

using Json = nlohmann::ordered_json;

Ledger sample() {
  Ledger l;
  l.scenario = "s";
  l.engine = "sglang 0.5.9";
  l.gpu_type = "h200-sxm-141gb";
  l.calibration = "defaults";
  l.facts.push_back({"mem_fraction_static", "--mem-fraction-static", 0.848});
  for (int r = 0; r < 2; ++r) {
    GpuLedger g;
    g.gpu = g.rank = r;
    g.total = mib(143'156);
    LedgerStep s;
    s.name = "context";
    s.delta_by_category[static_cast<size_t>(Category::kContext)] = mib(528);
    s.used_after = mib(528);
    s.free_after = mib(143'156 - 528);
    s.peak_used = mib(528);
    s.log_lines = {"a line"};
    g.steps.push_back(s);
    LedgerStep oom;
    oom.name = "weights";
    oom.outcome = r == 1 ? StepOutcome::kOutOfMemory : StepOutcome::kAborted;
    oom.requested = gib(200);
    oom.free_at_failure = mib(142'628);
    g.steps.push_back(oom);
    g.facts.push_back({"kv_tokens", "T", std::int64_t{908469}});
    g.facts.push_back({"free_before_weights", "F", gib(93)});
    g.facts.push_back({"bs", "bs", std::vector<std::int64_t>{1, 2, 4}});
    g.facts.push_back({"backend", "backend", std::string("fa3")});
    l.gpus.push_back(g);
  }
  return l;
}

TEST(LedgerJson, RoundTripsExactly) {
  const Ledger l = sample();
  const std::string text = ledger_to_json(l);
  Result<Ledger> back = ledger_from_json("l.json", text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ledger_to_json(*back), text);
  EXPECT_EQ(back->gpus[1].steps[1].requested.value(), 200LL << 30);
  EXPECT_EQ(back->gpus[0].facts, l.gpus[0].facts);
}

TEST(LedgerJson, VerdictAndFirstFailure) {
  const Ledger l = sample();
  EXPECT_FALSE(l.fits());
  ASSERT_NE(l.first_failure(), nullptr);
  EXPECT_EQ(l.first_failure()->rank, 1);  // GPU 0 was only aborted
}

TEST(LedgerJson, RejectsOtherFormats) {
  Result<Ledger> r = ledger_from_json("l.json", R"({"format": "other"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "l.json:1:12: not a gpumem.ledger/2 ledger (schema \"other\")");
  r = ledger_from_json("l.json", "{\n  \"format\":\n}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "l.json:3:1: malformed ledger JSON: parse error: syntax error while parsing value - "
            "unexpected '}'; expected '[', '{', or a literal");
}

TEST(JsonInteger, AcceptsOnlyIntegersThatFit) {
  EXPECT_EQ(json_integer<int>(Json(2147483647)), 2147483647);
  EXPECT_EQ(json_integer<std::int64_t>(Json(9223372036854775807ULL)), 9223372036854775807LL);
  EXPECT_EQ(json_integer<int>(Json(-3)), -3);
  EXPECT_THROW(json_integer<int>(Json(2147483648LL)), Json::type_error);
  EXPECT_THROW(json_integer<int>(Json(1e300)), Json::type_error);
  EXPECT_THROW(json_integer<int>(Json(2.0)), Json::type_error);
  EXPECT_THROW(json_integer<std::int64_t>(Json(9223372036854775808ULL)), Json::type_error);
  EXPECT_THROW(json_integer<int>(Json(-1), 0), Json::type_error);
  EXPECT_THROW(json_integer<int>(Json("1")), Json::type_error);
  EXPECT_EQ(json_integers(Json::parse("[1, -2, 3]")), (std::vector<std::int64_t>{1, -2, 3}));
  EXPECT_THROW(json_integers(Json(1)), Json::type_error);
  EXPECT_THROW(json_integers(Json::parse("[1, 0.5]")), Json::type_error);
}

TEST(LedgerJson, RejectsAGpuIndexThatIsNotACount) {
  Json j = Json::parse(ledger_to_json(sample()));
  j["gpus"][0]["gpu"] = 1e300;
  const std::string text = j.dump(1);
  Result<Ledger> r = ledger_from_json("l.json", text);
  ASSERT_FALSE(r.ok());
  // The place is the value's line and column in the file.
  const SourceLoc at = location_of_pointer("l.json", text, "/gpus/0/gpu");
  EXPECT_EQ(at.line, 44);
  EXPECT_EQ(r.status().message(),
            "l.json:44:11: malformed ledger JSON: expected an integer from 0 "
            "to 2147483647, got 1e+300");
}

}  // namespace
}  // namespace gpumem
