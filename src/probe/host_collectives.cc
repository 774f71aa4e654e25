#include "probe/host_collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace gpumem::probe {
namespace {

constexpr std::size_t kIntBytes = sizeof(std::int64_t);
constexpr std::size_t kHandleWireBytes = std::tuple_size_v<decltype(IpcHandle::bytes)> + kIntBytes;

std::string encode_int(std::int64_t v) {
  std::string out(kIntBytes, '\0');
  std::memcpy(out.data(), &v, kIntBytes);
  return out;
}

}  // namespace

std::string encode_ipc_handle(const IpcHandle& h) {
  std::string out(reinterpret_cast<const char*>(h.bytes.data()), h.bytes.size());
  out += encode_int(h.size.value());
  return out;
}

Result<IpcHandle> decode_ipc_handle(std::string_view wire) {
  if (wire.size() != kHandleWireBytes) {
    return internal_error(
        fmt::format("an IPC handle message has {} bytes, not {}", wire.size(), kHandleWireBytes));
  }
  IpcHandle h;
  std::memcpy(h.bytes.data(), wire.data(), h.bytes.size());
  std::int64_t size = 0;
  std::memcpy(&size, wire.data() + h.bytes.size(), kIntBytes);
  h.size = bytes(size);
  return h;
}

Result<std::int64_t> min_over_world(HostExchange& ex, std::string_view tag, std::int64_t local) {
  auto all = ex.all_gather_world(tag, encode_int(local));
  if (!all.ok()) return all.status();
  std::int64_t best = local;
  for (const std::string& v : *all) {
    if (v.size() != kIntBytes) {
      return internal_error(
          fmt::format("collective '{}': a rank sent {} bytes, not 8", tag, v.size()));
    }
    std::int64_t x = 0;
    std::memcpy(&x, v.data(), kIntBytes);
    best = std::min(best, x);
  }
  return best;
}

Result<std::vector<IpcHandle>> all_gather_ipc_handles(HostExchange& ex, std::string_view tag,
                                                      std::span<const int> ranks,
                                                      const IpcHandle& mine) {
  auto all = ex.all_gather(tag, ranks, encode_ipc_handle(mine));
  if (!all.ok()) return all.status();
  std::vector<IpcHandle> out;
  out.reserve(all->size());
  for (const std::string& w : *all) {
    auto h = decode_ipc_handle(w);
    if (!h.ok()) return h.status();
    out.push_back(*h);
  }
  return out;
}

}  // namespace gpumem::probe
