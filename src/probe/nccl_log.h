// Reading NCCL's own debug log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,ALLOC) after a probe
// measurement, to put next to the measured memory the numbers NCCL itself reports.
//
// Two kinds of line matter:
//  * the channel summary printed once per communicator at the end of initialisation,
//    "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p
//    channels per peer" (older releases omit some items; the parser takes whatever items
//    the line has, so a version change shows up as a different set of keys, not a miss);
//  * device allocations through NCCL's allocation helpers, "Cuda Alloc Size 10485760
//    pointer …", "Cuda Calloc Size …", "Cuda CallocAsync Size …" — the requested sizes,
//    before NCCL rounds cuMem allocations up to the granularity. Host allocations ("Host
//    Calloc", "CUMEM Host Alloc") are not device memory and are not counted.
#ifndef GPUMEM_PROBE_NCCL_LOG_H_
#define GPUMEM_PROBE_NCCL_LOG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/units.h"

namespace gpumem::probe {

// Items of one channel summary line, in the order printed: {"coll", 24}, {"collnet", 24},
// {"nvls", 0}, {"p2p", 32}, {"p2p_per_peer", 32}.
using ChannelCounts = std::vector<std::pair<std::string, int>>;

struct NcclAllocTotal {
  std::string kind;  // "Cuda Alloc", "Cuda Calloc", "Cuda CallocAsync"
  int count = 0;
  Bytes requested = bytes(0);
};

struct NcclLogSummary {
  std::optional<std::string> version;        // "2.28.9+cuda13.0", from "NCCL version …"
  std::vector<ChannelCounts> channel_lines;  // one per communicator initialised
  std::vector<NcclAllocTotal> allocations;   // per kind, in order of first appearance
  std::vector<std::string> kept_lines;       // the first `max_lines` INFO/WARN lines
  int total_lines = 0;
};

// Parses one line; nullopt when it is not a channel summary.
std::optional<ChannelCounts> parse_channel_line(std::string_view line);

NcclLogSummary summarize_nccl_log(std::string_view text, int max_lines);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_NCCL_LOG_H_
