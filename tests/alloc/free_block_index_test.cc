#include "alloc/free_block_index.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpumem {
namespace {

std::vector<std::uint32_t> blocks_in_order(const FreeBlockIndex& index) {
  std::vector<std::uint32_t> out;
  for (const FreeBlockIndex::Entry& e : index.entries()) out.push_back(e.block());
  return out;
}

TEST(FreeBlockIndex, OrdersBySizeThenAddress) {
  FreeBlockIndex index;
  index.insert({mib(12), 300, 1});
  index.insert({mib(4), 900, 2});
  index.insert({mib(12), 100, 3});
  index.insert({mib(14), 200, 4});
  EXPECT_EQ(blocks_in_order(index), (std::vector<std::uint32_t>{2, 3, 1, 4}));
}

TEST(FreeBlockIndex, BestFitIsTheSmallestFittingBlockAtTheLowestAddress) {
  FreeBlockIndex index;
  EXPECT_EQ(index.best_fit(mib(1)), 0u);  // empty: size()
  index.insert({mib(12), 300, 1});
  index.insert({mib(12), 100, 3});
  index.insert({mib(14), 200, 4});
  EXPECT_EQ(index[index.best_fit(mib(11))].block(), 3u);
  EXPECT_EQ(index[index.best_fit(mib(12))].block(), 3u);
  EXPECT_EQ(index[index.best_fit(mib(13))].block(), 4u);
  EXPECT_EQ(index.best_fit(mib(15)), index.size());
}

TEST(FreeBlockIndex, EraseRemovesExactlyTheNamedBlock) {
  FreeBlockIndex index;
  index.insert({mib(12), 300, 1});
  index.insert({mib(12), 100, 3});
  index.insert({mib(14), 200, 4});
  index.erase({mib(12), 300, 1});
  EXPECT_EQ(blocks_in_order(index), (std::vector<std::uint32_t>{3, 4}));
  index.erase_if([](const FreeBlockIndex::Entry& e) { return e.size() > mib(13); });
  EXPECT_EQ(blocks_in_order(index), (std::vector<std::uint32_t>{3}));
  index.erase_at(0);
  EXPECT_TRUE(index.empty());
}

}  // namespace
}  // namespace gpumem
