#include "opstrace/ops_recorder.h"

#include <string>

namespace gpumem {

using nlohmann::json;

OpsRecorder::OpsRecorder(StepObserver& inner, const CachingAllocator& allocator)
    : inner_(inner), allocator_(allocator) {}

std::uint64_t OpsRecorder::key(BlockHandle block) {
  return (static_cast<std::uint64_t>(block.index) << 32) | block.generation;
}

void OpsRecorder::begin_step(std::string_view name) {
  inner_.begin_step(name);
  ops_.push_back(json::array({"step", std::string(name)}));
}

void OpsRecorder::end_step(const Status& outcome) {
  inner_.end_step(outcome);
  // The emulation's view after the step, so that every replay also checks the allocator.
  const json emulated = {{"allocated", allocator_.memory_allocated().value()},
                         {"reserved", allocator_.memory_reserved().value()},
                         {"segments", allocator_.stats().segments}};
  ops_.push_back(json::array(
      {"end", std::string(status_code_name(outcome.code())), outcome.message(), emulated}));
}

void OpsRecorder::log_line(std::string_view line) {
  inner_.log_line(line);
  ops_.push_back(json::array({"log", std::string(line)}));
}

void OpsRecorder::allocated(Bytes size, Category category, BlockHandle block, DevicePtr address) {
  const std::int64_t id = next_id_++;
  block_ids_[key(block)] = id;
  block_at_[address.address] = id;
  block_address_[key(block)] = address.address;
  ops_.push_back(json::array({"alloc", id, size.value(), std::string(category_name(category))}));
}

void OpsRecorder::allocation_failed(Bytes size, Category category, const Status&) {
  ops_.push_back(json::array({"alloc_failed", size.value(), std::string(category_name(category))}));
}

void OpsRecorder::freed(BlockHandle block) {
  const std::uint64_t k = key(block);
  ops_.push_back(json::array({"free", block_ids_.at(k)}));
  block_at_.erase(block_address_.at(k));
  block_address_.erase(k);
  block_ids_.erase(k);
}

void OpsRecorder::cache_emptied() { ops_.push_back(json::array({"empty_cache"})); }

void OpsRecorder::pool_created(PoolId pool) {
  ops_.push_back(json::array({"pool_create", pool.value}));
}

void OpsRecorder::routing_began(PoolId pool) {
  ops_.push_back(json::array({"pool_begin", pool.value}));
}

void OpsRecorder::routing_ended(PoolId pool) {
  ops_.push_back(json::array({"pool_end", pool.value}));
}

void OpsRecorder::pool_released(PoolId pool) {
  ops_.push_back(json::array({"pool_release", pool.value}));
}

void OpsRecorder::peaks_reset() { ops_.push_back(json::array({"reset_peak"})); }

void OpsRecorder::record(json op) { ops_.push_back(std::move(op)); }

std::int64_t OpsRecorder::raw_allocated(DevicePtr address) {
  const std::int64_t id = next_id_++;
  raw_at_[address.address] = id;
  return id;
}

std::int64_t OpsRecorder::raw_freed(DevicePtr address) {
  auto it = raw_at_.find(address.address);
  if (it == raw_at_.end()) return -1;
  const std::int64_t id = it->second;
  raw_at_.erase(it);
  return id;
}

Result<json> OpsRecorder::buffer(DevicePtr address) const {
  if (address.null()) return json(nullptr);
  if (auto it = block_at_.find(address.address); it != block_at_.end()) {
    return json::array({"block", it->second});
  }
  if (auto it = raw_at_.find(address.address); it != raw_at_.end()) {
    return json::array({"raw", it->second});
  }
  return internal_error("ops trace: a collective's buffer at " + std::to_string(address.address) +
                        " is the start of no live tensor or raw allocation");
}

}  // namespace gpumem
