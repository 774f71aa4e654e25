#include "nccl/nccl_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

#include "core/spelling.h"

namespace gpumem {

namespace {

// nccl 2.28 graph/topo.cc topoPathTypeStr, the names ncclGetLevel accepts (LOC .. SYS).
constexpr std::array<std::string_view, 10> kPathNames = {"LOC", "NVL", "NVB", "C2C", "PIX",
                                                         "PXB", "P2C", "PXN", "PHB", "SYS"};

// nccl 2.28 graph/paths.cc ncclGetLevel levelsOldToNew: legacy NCCL_P2P_LEVEL digits.
constexpr std::array<NcclPathType, 6> kLegacyLevels = {NcclPathType::kLoc, NcclPathType::kPix,
                                                       NcclPathType::kPxb, NcclPathType::kPhb,
                                                       NcclPathType::kSys, NcclPathType::kSys};

NcclPathType path_of(NcclPciePath path) {
  switch (path) {
    case NcclPciePath::kPix:
      return NcclPathType::kPix;
    case NcclPciePath::kPxb:
      return NcclPathType::kPxb;
    case NcclPciePath::kPhb:
      return NcclPathType::kPhb;
    case NcclPciePath::kSys:
      return NcclPathType::kSys;
  }
  return NcclPathType::kSys;
}

// nccl 2.28 graph/paths.cc ncclGetLevel: NCCL_P2P_DISABLE=1 means level 0 (LOC), which no
// pair of distinct GPUs passes; otherwise NCCL_P2P_LEVEL if set.
Result<std::optional<NcclPathType>> user_p2p_level(const NcclSettings& settings) {
  if (settings.p2p_disable.value_or(false)) return std::optional(NcclPathType::kLoc);
  if (!settings.p2p_level) return std::optional<NcclPathType>();
  Result<NcclPathType> level = parse_p2p_level(*settings.p2p_level);
  if (!level.ok()) return level.status();
  return std::optional(*level);
}

int pow2_up(int v) {
  int p = 1;
  while (p < v) p <<= 1;
  return p;
}

const NcclChannelRule* find_rule(const NcclConstants& k, NcclLinkClass link, int cc) {
  for (const NcclChannelRule& rule : k.rules()) {
    if (rule.link == link && cc >= rule.min_compute_capability &&
        cc <= rule.max_compute_capability) {
      return &rule;
    }
  }
  return nullptr;
}

std::string_view link_name(NcclLinkClass link) {
  switch (link) {
    case NcclLinkClass::kNvlink:
      return "NVLink";
    case NcclLinkClass::kPcieP2p:
      return "PCIe P2P";
    case NcclLinkClass::kShm:
      return "SHM";
  }
  return "unknown";
}

}  // namespace

Result<NcclPathType> parse_p2p_level(std::string_view text) {
  for (std::size_t i = 0; i < kPathNames.size(); ++i) {
    if (text == kPathNames[i]) return static_cast<NcclPathType>(i);
  }
  if (!text.empty() && text.front() >= '0' && text.front() <= '9') {
    // strtol semantics: the leading digits count, anything after them is ignored.
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    unsigned long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, value);
    const std::size_t max_index = kLegacyLevels.size() - 1;
    const std::size_t index =
        ec == std::errc() ? std::min<unsigned long long>(value, max_index) : max_index;
    return kLegacyLevels[index];
  }
  std::array<std::string, kPathNames.size()> candidates;
  for (std::size_t i = 0; i < kPathNames.size(); ++i) candidates[i] = std::string(kPathNames[i]);
  return invalid_input(fmt::format(
      "NCCL_P2P_LEVEL '{}' is not a P2P level (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, "
      "SYS or 0..5){}",
      text, did_you_mean(text, candidates)));
}

Result<NcclTopology> resolve_topology(const NcclCommInput& input, const NcclConstants& k) {
  if (input.nranks < 1) {
    return invalid_input(
        fmt::format("an NCCL communicator needs at least 1 rank, got {}", input.nranks));
  }
  if (input.position < 0 || input.position >= input.nranks) {
    return invalid_input(
        fmt::format("rank position {} is outside 0..{}", input.position, input.nranks - 1));
  }
  if (input.settings.nvls_enable.value_or(false)) {
    return invalid_input("NCCL_NVLS_ENABLE=1 is not modelled: gpumem runs NCCL with NVLS off");
  }

  Result<std::optional<NcclPathType>> level = user_p2p_level(input.settings);
  if (!level.ok()) return level.status();

  NcclTopology t;
  if (input.nranks == 1) {
    // A lone GPU has no GPU-to-GPU path, so paths.cc ncclTopoPathAllNVLink finds nothing
    // beyond NVLink and the communicator counts as all-NVLink; it makes no connections.
    t.all_nvlink = true;
    t.search_channels = k.single_rank_search_channels;
  } else {
    bool p2p = false;
    if (input.interconnect == NcclInterconnect::kNvlink) {
      // nccl 2.28 graph/paths.cc ncclTopoCheckP2p: P2P when the path type is <= the level.
      p2p = !level->has_value() || NcclPathType::kNvl <= **level;
    } else if (level->has_value() && **level < NcclPathType::kPix) {
      p2p = false;  // no PCIe path passes a level below PIX (NCCL_P2P_DISABLE=1 is LOC)
    } else if (level->has_value()) {
      if (!input.pcie_path) {
        return invalid_input(fmt::format(
            "NCCL_P2P_LEVEL={} on a PCIe box needs the PCIe path between the GPUs (PIX, PXB, "
            "PHB or SYS) to decide between P2P and SHM",
            *input.settings.p2p_level));
      }
      p2p = path_of(*input.pcie_path) <= **level;
    } else {
      p2p = input.interconnect == NcclInterconnect::kPciePeerToPeer;
    }
    t.transport = p2p ? NcclTransport::kP2p : NcclTransport::kShm;
    if (!p2p) {
      t.link = NcclLinkClass::kShm;
    } else if (input.interconnect == NcclInterconnect::kNvlink) {
      t.link = NcclLinkClass::kNvlink;
    } else {
      t.link = NcclLinkClass::kPcieP2p;
    }
    // Without P2P, paths.cc ncclTopoComputePaths routes GPU pairs through the CPU, so even an
    // NVLink box stops being all-NVLink.
    t.all_nvlink = t.link == NcclLinkClass::kNvlink;
    // nccl 2.28 graph/paths.cc ncclTopoCheckP2p: read mode only on NVLink between two sm_80.
    t.p2p_read = t.link == NcclLinkClass::kNvlink &&
                 input.compute_capability == k.p2p_read_compute_capability;
    const NcclChannelRule* rule = find_rule(k, t.link, input.compute_capability);
    if (rule == nullptr) {
      return invalid_input(fmt::format("no NCCL channel rule for {} links on compute capability {}",
                                       link_name(t.link), input.compute_capability));
    }
    t.search_channels = rule->search_channels;
  }

  // nccl 2.28 graph/connect.cc ncclTopoPostset: the search channels are duplicated, then
  // capped by NCCL_MAX_NCHANNELS/NCCL_MAX_CTAS and raised to NCCL_MIN_NCHANNELS/NCCL_MIN_CTAS
  // (connect.cc ncclMaxNchannels/ncclMinNchannels clamp both to 1..MAXCHANNELS / 0..MAXCHANNELS).
  const int max_channels =
      std::clamp(input.settings.max_channels.value_or(k.max_channels), 1, k.max_channels);
  const int min_channels = std::clamp(input.settings.min_channels.value_or(0), 0, k.max_channels);
  t.channels = std::min({2 * t.search_channels, k.max_channels, max_channels});
  t.channels = std::max(t.channels, min_channels);

  // nccl 2.28 graph/paths.cc ncclTopoComputeP2pChannels: clamp, then next power of two.
  t.p2p_channels = pow2_up(std::clamp(t.channels, k.min_p2p_channels, k.max_p2p_channels));
  return t;
}

}  // namespace gpumem
