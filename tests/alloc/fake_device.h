// A Device for allocator tests and benchmarks: a fixed capacity, exact byte accounting (no
// page rounding: every segment the caching allocator asks for is already a multiple of
// 2 MiB), and a log of every malloc, failed malloc and free, so a test can assert what the
// driver saw. Addresses start at 1 TiB and only grow, so segments created later lie higher.
// Only the memory calls are modelled; the others report that they are not.
#ifndef GPUMEM_TESTS_ALLOC_FAKE_DEVICE_H_
#define GPUMEM_TESTS_ALLOC_FAKE_DEVICE_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/units.h"
#include "device/device.h"

namespace gpumem::test_support {

class FakeDevice final : public Device {
 public:
  enum class Op { kMalloc, kFailedMalloc, kFree };
  struct Event {
    Op op;
    Bytes size;
    Category category;  // of a malloc; kOther for a free
    DevicePtr ptr;      // null for a failed malloc
    friend bool operator==(const Event&, const Event&) = default;
    // gtest prints mismatching events with this.
    friend void PrintTo(const Event& e, std::ostream* os) {
      static constexpr const char* kOps[] = {"malloc", "failed malloc", "free"};
      *os << kOps[static_cast<int>(e.op)] << " " << e.size.value() << " B "
          << category_name(e.category) << " at " << e.ptr.address;
    }
  };

  explicit FakeDevice(Bytes total) : total_(total) {}

  Status init_context() override { return Status::ok_status(); }
  MemInfo mem_get_info() override { return {total_ - used_, total_}; }

  Result<DevicePtr> malloc(Bytes size, Category category) override {
    if (size > total_ - used_) {
      events_.push_back({Op::kFailedMalloc, size, category, DevicePtr{}});
      return Status(StatusCode::kOutOfMemory, "FakeDevice: out of memory");
    }
    const DevicePtr ptr{next_address_};
    next_address_ += static_cast<std::uint64_t>(size.value());
    live_[ptr.address] = size;
    used_ += size;
    events_.push_back({Op::kMalloc, size, category, ptr});
    return ptr;
  }

  void free(DevicePtr ptr) override {
    const auto it = live_.find(ptr.address);
    if (it == live_.end()) {
      bad_frees_.push_back(ptr);
      return;
    }
    used_ -= it->second;
    events_.push_back({Op::kFree, it->second, Category::kOther, ptr});
    live_.erase(it);
  }

  Result<IpcHandle> ipc_export(DevicePtr) override { return not_modelled(); }
  Result<DevicePtr> ipc_open(const IpcHandle&) override { return not_modelled(); }
  void ipc_close(DevicePtr) override {}
  Status begin_graph_capture() override { return not_modelled(); }
  Status launch_kernel(std::span<const DevicePtr>, Bytes) override { return not_modelled(); }
  Result<GraphId> end_graph_capture() override { return not_modelled(); }
  Status load_library(std::string_view) override { return not_modelled(); }

  Bytes used() const { return used_; }
  Bytes free_bytes() const { return total_ - used_; }
  const std::vector<Event>& events() const { return events_; }
  // Frees of addresses that were not the start of a live allocation (a bug in the caller).
  const std::vector<DevicePtr>& bad_frees() const { return bad_frees_; }
  void clear_events() { events_.clear(); }

 private:
  static Status not_modelled() {
    return internal_error("FakeDevice models only malloc, free and mem_get_info");
  }

  Bytes total_;
  Bytes used_;
  std::uint64_t next_address_ = 1ULL << 40;
  std::map<std::uint64_t, Bytes> live_;
  std::vector<Event> events_;
  std::vector<DevicePtr> bad_frees_;
};

}  // namespace gpumem::test_support

#endif  // GPUMEM_TESTS_ALLOC_FAKE_DEVICE_H_
