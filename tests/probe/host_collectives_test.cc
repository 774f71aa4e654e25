#include "probe/host_collectives.h"

#include <gtest/gtest.h>

#include <future>
#include <limits>
#include <vector>

namespace gpumem::probe {
namespace {

using namespace std::chrono_literals;

TEST(HostCollectives, IpcHandleRoundTrip) {
  IpcHandle h;
  for (std::size_t i = 0; i < h.bytes.size(); ++i) h.bytes[i] = std::byte(i * 3 + 1);
  h.size = mib(8) + bytes(5);
  const std::string wire = encode_ipc_handle(h);
  EXPECT_EQ(wire.size(), 72u);
  auto back = decode_ipc_handle(wire);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->bytes, h.bytes);
  EXPECT_EQ(back->size.value(), 8'388'613);
  auto bad = decode_ipc_handle(wire.substr(1));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "an IPC handle message has 71 bytes, not 72");
}

TEST(HostCollectives, MinOverWorldAndIpcGather) {
  auto port = find_free_port();
  ASSERT_TRUE(port.ok());
  // Free memory per rank as three GPUs might report it; the MIN is rank 1's.
  const std::vector<std::int64_t> free = {150'000'000'005, 149'999'992'832, 150'000'004'096};
  std::vector<std::future<std::string>> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.push_back(std::async(std::launch::async, [&, r]() -> std::string {
      ExchangeOptions o;
      o.rank = r;
      o.world_size = 3;
      o.master_port = *port;
      o.timeout = 20s;
      auto ex = HostExchange::connect(o);
      if (!ex.ok()) return ex.status().message();
      auto m = min_over_world(**ex, "min_free", free[r]);
      if (!m.ok()) return m.status().message();
      IpcHandle mine;
      mine.bytes[0] = std::byte(r);
      mine.size = mib(2) * (r + 1);
      const std::vector<int> group = {0, 2};
      std::string out = std::to_string(*m);
      if (r != 1) {
        auto hs = all_gather_ipc_handles(**ex, "ipc", group, mine);
        if (!hs.ok()) return hs.status().message();
        for (const IpcHandle& h : *hs) {
          out += " " + std::to_string(static_cast<int>(h.bytes[0])) + ":" +
                 std::to_string(h.size.value());
        }
      }
      return out;
    }));
  }
  EXPECT_EQ(ranks[0].get(), "149999992832 0:2097152 2:6291456");
  EXPECT_EQ(ranks[1].get(), "149999992832");
  EXPECT_EQ(ranks[2].get(), "149999992832 0:2097152 2:6291456");
}

}  // namespace
}  // namespace gpumem::probe
