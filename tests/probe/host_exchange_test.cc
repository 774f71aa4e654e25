#include "probe/host_exchange.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

namespace gpumem::probe {
namespace {

using namespace std::chrono_literals;

ExchangeOptions options(int rank, int world, int port, std::chrono::milliseconds timeout = 20s) {
  ExchangeOptions o;
  o.rank = rank;
  o.world_size = world;
  o.master_addr = "127.0.0.1";
  o.master_port = port;
  o.timeout = timeout;
  return o;
}

// Runs `body(rank, exchange)` on `world` threads, one rank each, and returns what each
// returned. Connection failures are returned as the status text.
template <typename F>
std::vector<std::string> run_ranks(int world, F body, std::chrono::milliseconds timeout = 20s) {
  auto port = find_free_port();
  EXPECT_TRUE(port.ok());
  std::vector<std::future<std::string>> futures;
  for (int r = 0; r < world; ++r) {
    futures.push_back(std::async(std::launch::async, [=]() -> std::string {
      auto ex = HostExchange::connect(options(r, world, *port, timeout));
      if (!ex.ok()) return "connect: " + ex.status().message();
      return body(r, **ex);
    }));
  }
  std::vector<std::string> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

std::string joined(const Result<std::vector<std::string>>& r) {
  if (!r.ok()) return "error: " + r.status().message();
  std::string out;
  for (const std::string& s : *r) out += "[" + s + "]";
  return out;
}

TEST(HostExchange, AllGatherWorldOrdersByRank) {
  const auto got = run_ranks(4, [](int r, HostExchange& ex) {
    return joined(ex.all_gather_world("names", fmt::format("r{}", r)));
  });
  for (const std::string& g : got) EXPECT_EQ(g, "[r0][r1][r2][r3]");
}

TEST(HostExchange, DisjointSubsetsGatherWithoutRankZero) {
  // Ranks {1, 3} and {0, 2} run their own collectives at the same time, as two TP groups do.
  const auto got = run_ranks(4, [](int r, HostExchange& ex) {
    const std::vector<int> mine = r % 2 == 1 ? std::vector<int>{1, 3} : std::vector<int>{0, 2};
    return joined(ex.all_gather(r % 2 == 1 ? "odd" : "even", mine, fmt::format("v{}", r * 10)));
  });
  EXPECT_EQ(got[0], "[v0][v20]");
  EXPECT_EQ(got[1], "[v10][v30]");
  EXPECT_EQ(got[2], "[v0][v20]");
  EXPECT_EQ(got[3], "[v10][v30]");
}

TEST(HostExchange, LargePayloadsAndBackToBackCollectives) {
  // 3 MiB per rank is far beyond a socket buffer: sends and receives must interleave. The
  // second collective's bytes can arrive before the first is consumed and must wait.
  const auto got = run_ranks(3, [](int r, HostExchange& ex) -> std::string {
    const std::string big(3 << 20, static_cast<char>('a' + r));
    auto first = ex.all_gather_world("big", big);
    auto second = ex.all_gather_world("small", std::to_string(r));
    if (!first.ok()) return first.status().message();
    std::string sizes;
    for (const std::string& s : *first) sizes += fmt::format("{}{} ", s.size(), s.back());
    return sizes + joined(second);
  });
  for (const std::string& g : got) EXPECT_EQ(g, "3145728a 3145728b 3145728c [0][1][2]");
}

TEST(HostExchange, SingleRankNeedsNoNetwork) {
  auto ex = HostExchange::connect(options(0, 1, 1));
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ(joined((*ex)->all_gather_world("solo", "x")), "[x]");
  EXPECT_TRUE((*ex)->barrier("b").ok());
}

TEST(HostExchange, MismatchedCollectivesAreNamed) {
  const auto got = run_ranks(2, [](int r, HostExchange& ex) {
    return joined(ex.all_gather_world(r == 0 ? "min_free" : "barrier", "x"));
  });
  EXPECT_EQ(got[0],
            "error: rank 0 is in collective 'min_free' but rank 1 sent 'barrier': the ranks ran "
            "different sequences of collectives");
  EXPECT_EQ(got[1],
            "error: rank 1 is in collective 'barrier' but rank 0 sent 'min_free': the ranks ran "
            "different sequences of collectives");
}

TEST(HostExchange, PeerThatExitsIsNamed) {
  std::promise<void> rank1_gone;
  auto gone = rank1_gone.get_future().share();
  const auto got = run_ranks(2, [&](int r, HostExchange& ex) -> std::string {
    if (r == 1) {
      rank1_gone.set_value();
      return "left";  // the exchange is destroyed when this returns: sockets close
    }
    gone.wait();
    std::this_thread::sleep_for(100ms);
    const std::string closed = join_ranks(ex.closed_peers());
    return closed + " | " + joined(ex.all_gather_world("min_free", "x"));
  });
  EXPECT_EQ(got[0],
            "1 | error: rank 0: rank 1 closed its connection during collective 'min_free' (it "
            "exited or crashed)");
}

TEST(HostExchange, SilentPeerTimesOut) {
  std::promise<void> done;
  auto finished = done.get_future().share();
  const auto got = run_ranks(
      2,
      [&](int r, HostExchange& ex) -> std::string {
        if (r == 1) {
          finished.wait();  // alive, connected, but never joins the collective
          return "idle";
        }
        const std::string out = joined(ex.all_gather_world("kv_size", "x"));
        done.set_value();
        return out;
      },
      1s);
  EXPECT_EQ(got[0],
            "error: rank 0: timed out after 1 s in collective 'kv_size' waiting for rank(s) 1");
}

TEST(HostExchange, MissingRankZeroTimesOut) {
  auto port = find_free_port();
  ASSERT_TRUE(port.ok());
  auto ex = HostExchange::connect(options(1, 2, *port, 300ms));
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.status().code(), StatusCode::kAborted);
  EXPECT_EQ(ex.status().message(),
            fmt::format("rank 1 connecting to rank 0 at MASTER_ADDR:MASTER_PORT 127.0.0.1:{}: no "
                        "connection within 0.3 s (last error: Connection refused (111))",
                        *port));
}

TEST(HostExchange, RankZeroNamesTheRanksThatNeverCame) {
  auto port = find_free_port();
  ASSERT_TRUE(port.ok());
  auto zero = std::async(std::launch::async,
                         [&] { return HostExchange::connect(options(0, 3, *port, 1s)); });
  auto one = HostExchange::connect(options(1, 3, *port, 1s));
  auto z = zero.get();
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().message(),
            fmt::format("rank 0: timed out after 1 s waiting for rank(s) 2 to connect to port {}",
                        *port));
  EXPECT_FALSE(one.ok());
}

TEST(HostExchange, InconsistentWorldSizeIsRejected) {
  auto port = find_free_port();
  ASSERT_TRUE(port.ok());
  auto zero = std::async(std::launch::async,
                         [&] { return HostExchange::connect(options(0, 2, *port, 2s)); });
  auto one = HostExchange::connect(options(1, 3, *port, 2s));
  auto z = zero.get();
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(z.status().message(), "rank 1 was started with WORLD_SIZE 3 but rank 0 with 2");
}

TEST(HostExchange, RanksMustBeAscendingAndIncludeSelf) {
  const auto got = run_ranks(2, [](int r, HostExchange& ex) -> std::string {
    if (r == 1) return "";
    const std::vector<int> descending = {1, 0};
    const std::vector<int> others = {1};
    return joined(ex.all_gather("a", descending, "x")) + " / " +
           joined(ex.all_gather("b", others, "x"));
  });
  EXPECT_EQ(got[0],
            "error: all_gather 'a': ranks [1, 0] are not strictly ascending world ranks below 2 / "
            "error: all_gather 'b': rank 0 is not among ranks [1]");
}

TEST(HostExchange, BadPortIsRejectedBeforeAnyNetworkCall) {
  auto ex = HostExchange::connect(options(0, 2, 70000));
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.status().message(), "MASTER_PORT 70000 is not a TCP port");
}

}  // namespace
}  // namespace gpumem::probe
