// The cached free blocks of one pool, in the order PyTorch keeps them: by size, then by
// address (pytorch c10/cuda/CUDACachingAllocator.cpp BlockComparatorSize, one stream). The
// best fit for a request is the first entry of at least its size: the smallest block that
// fits, the lowest address among equal sizes.
//
// A sorted vector rather than PyTorch's std::set: a pool caches tens of free blocks during
// a start-up, where a binary search and a short memmove beat a red-black tree's node
// allocation and pointer chasing; once the vector has grown, insert and erase never touch
// the heap. Entries are unique because addresses are.
#ifndef GPUMEM_ALLOC_FREE_BLOCK_INDEX_H_
#define GPUMEM_ALLOC_FREE_BLOCK_INDEX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/units.h"

namespace gpumem {

class FreeBlockIndex {
 public:
  // The size is stored as a byte count and handed out as Bytes: Boost.Units' quantity is
  // not trivially copyable, so a vector of entries holding one shifts them one by one on
  // insert and erase; this entry is trivially copyable, and they move with one memmove.
  class Entry {
   public:
    Entry(Bytes size, std::uint64_t address, std::uint32_t block)
        : size_bytes_(size.value()), address_(address), block_(block) {}
    Bytes size() const { return bytes(size_bytes_); }
    std::uint64_t address() const { return address_; }
    std::uint32_t block() const { return block_; }  // the allocator's record of the block
    friend bool operator==(const Entry&, const Entry&) = default;

   private:
    friend class FreeBlockIndex;
    std::int64_t size_bytes_;
    std::uint64_t address_;
    std::uint32_t block_;
  };
  static_assert(std::is_trivially_copyable_v<Entry>);

  // Position of the best fit for `size`; size() when no entry is large enough.
  std::size_t best_fit(Bytes size) const {
    return static_cast<std::size_t>(
        std::lower_bound(entries_.begin(), entries_.end(), Entry{size, 0, 0}, less) -
        entries_.begin());
  }

  void insert(const Entry& e) {
    entries_.insert(std::upper_bound(entries_.begin(), entries_.end(), e, less), e);
  }
  // REQUIRES: an entry with e's size and address is present.
  void erase(const Entry& e) { erase_at(position_of(e)); }
  void erase_at(std::size_t pos) {
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(pos));
  }
  // Removes every entry for which `pred` returns true; `pred` sees each entry once, in order.
  template <typename Pred>
  void erase_if(Pred pred) {
    std::erase_if(entries_, pred);
  }

  // Replaces the entries with `entries`, in any order.
  void assign(std::vector<Entry> entries) {
    std::sort(entries.begin(), entries.end(), less);
    entries_ = std::move(entries);
  }

  std::span<const Entry> entries() const { return entries_; }
  const Entry& operator[](std::size_t pos) const { return entries_[pos]; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  friend bool operator==(const FreeBlockIndex&, const FreeBlockIndex&) = default;

 private:
  static bool less(const Entry& a, const Entry& b) {
    return a.size_bytes_ != b.size_bytes_ ? a.size_bytes_ < b.size_bytes_ : a.address_ < b.address_;
  }
  std::size_t position_of(const Entry& e) const {
    return static_cast<std::size_t>(std::lower_bound(entries_.begin(), entries_.end(), e, less) -
                                    entries_.begin());
  }

  std::vector<Entry> entries_;
};

}  // namespace gpumem

#endif  // GPUMEM_ALLOC_FREE_BLOCK_INDEX_H_
