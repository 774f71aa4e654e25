#include "probe/nccl_log.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace gpumem::probe {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Leading decimal integer of `s`; nullopt when `s` does not start with a digit.
std::optional<long long> leading_int(std::string_view s, std::size_t* used) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc()) return std::nullopt;
  *used = static_cast<std::size_t>(ptr - s.data());
  return v;
}

// NCCL's device allocation helpers, as named in their INFO lines
// (nccl 2.30 src/include/alloc.h ncclCudaMallocDebug, ncclCudaCallocDebug,
// ncclCudaCallocAsyncDebug). Longest first, so "Cuda CallocAsync" is not read as "Cuda Calloc".
constexpr std::string_view kAllocKinds[] = {"Cuda CallocAsync", "Cuda Calloc", "Cuda Alloc"};

}  // namespace

std::optional<ChannelCounts> parse_channel_line(std::string_view line) {
  // nccl 2.28 src/init.cc initTransportsRank: the summary, once per communicator.
  const std::size_t coll = line.find(" coll channels");
  if (coll == std::string_view::npos) return std::nullopt;
  std::size_t start = coll;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(line[start - 1]))) --start;
  if (start == coll) return std::nullopt;
  std::string_view rest = line.substr(start);
  ChannelCounts out;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    std::size_t used = 0;
    const std::optional<long long> n = leading_int(item, &used);
    if (!n) break;
    std::string_view words = trim(item.substr(used));
    const std::size_t ch = words.find("channels");
    if (ch == std::string_view::npos) break;
    std::string key(trim(words.substr(0, ch)));
    const std::string_view after = trim(words.substr(ch + std::string_view("channels").size()));
    if (!after.empty()) {
      key += ' ';
      key += after;
    }
    std::replace(key.begin(), key.end(), ' ', '_');
    out.emplace_back(std::move(key), static_cast<int>(*n));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

NcclLogSummary summarize_nccl_log(std::string_view text, int max_lines) {
  NcclLogSummary out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (trim(line).empty()) continue;
    ++out.total_lines;
    if (static_cast<int>(out.kept_lines.size()) < max_lines) out.kept_lines.emplace_back(line);

    if (const std::size_t v = line.find("NCCL version "); v != std::string_view::npos) {
      if (!out.version) {
        std::string_view ver = line.substr(v + std::string_view("NCCL version ").size());
        ver = trim(ver.substr(0, ver.find(' ')));
        out.version = std::string(ver);
      }
    }
    if (std::optional<ChannelCounts> ch = parse_channel_line(line)) {
      out.channel_lines.push_back(std::move(*ch));
      continue;
    }
    for (std::string_view kind : kAllocKinds) {
      const std::string marker = std::string(kind) + " Size ";
      const std::size_t at = line.find(marker);
      if (at == std::string_view::npos) continue;
      // "CUMEM Host Alloc Size" or "Host Calloc Size" contain no "Cuda " prefix, so they
      // never match; a "Cuda Alloc" must not be the tail of another word either.
      if (at > 0 && std::isalpha(static_cast<unsigned char>(line[at - 1]))) continue;
      std::size_t used = 0;
      const std::optional<long long> size = leading_int(line.substr(at + marker.size()), &used);
      // A negative size is not an allocation; a sum that would overflow is not a real log's.
      if (!size || *size < 0) break;
      auto it = std::find_if(out.allocations.begin(), out.allocations.end(),
                             [&](const NcclAllocTotal& t) { return t.kind == kind; });
      if (it == out.allocations.end()) {
        out.allocations.push_back({std::string(kind), 0, bytes(0)});
        it = out.allocations.end() - 1;
      }
      if (it->requested.value() > std::numeric_limits<std::int64_t>::max() - *size) break;
      ++it->count;
      it->requested += bytes(*size);
      break;
    }
  }
  return out;
}

}  // namespace gpumem::probe
