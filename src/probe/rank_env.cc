#include "probe/rank_env.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdlib>

namespace gpumem::probe {
namespace {

Result<int> parse_int(const EnvLookup& env, std::string_view name) {
  const std::optional<std::string> v = env(name);
  if (!v) return invalid_input(fmt::format("{} is not set", name));
  int out = 0;
  const char* end = v->data() + v->size();
  const auto [ptr, ec] = std::from_chars(v->data(), end, out);
  if (ec != std::errc() || ptr != end || v->empty()) {
    return invalid_input(fmt::format("{}='{}' is not an integer", name, *v));
  }
  return out;
}

struct Names {
  Launcher launcher;
  std::string_view rank;
  std::string_view size;
  std::string_view local_rank;
  std::string_view local_rank_fallback;  // empty when there is none
};

Result<RankEnv> read(const EnvLookup& env, const Names& n) {
  RankEnv out;
  out.launcher = n.launcher;
  auto rank = parse_int(env, n.rank);
  if (!rank.ok()) return rank.status();
  auto size = parse_int(env, n.size);
  if (!size.ok()) return size.status();
  std::string_view local_name = n.local_rank;
  if (!env(local_name) && !n.local_rank_fallback.empty()) local_name = n.local_rank_fallback;
  auto local = parse_int(env, local_name);
  if (!local.ok()) {
    return invalid_input(
        fmt::format("{} (the GPU of this rank): {}", n.local_rank, local.status().message()));
  }
  out.rank = *rank;
  out.world_size = *size;
  out.local_rank = *local;
  if (out.world_size < 1) {
    return invalid_input(fmt::format("{}={} must be at least 1", n.size, out.world_size));
  }
  if (out.rank < 0 || out.rank >= out.world_size) {
    return invalid_input(
        fmt::format("{}={} is outside 0..{}", n.rank, out.rank, out.world_size - 1));
  }
  if (out.local_rank < 0) {
    return invalid_input(fmt::format("{}={} is negative", local_name, out.local_rank));
  }
  const std::optional<std::string> addr = env("MASTER_ADDR");
  if (!addr || addr->empty()) {
    return invalid_input(
        fmt::format("MASTER_ADDR is not set; {} sets the rank variables but the probe also needs "
                    "MASTER_ADDR and MASTER_PORT (rank 0's address and a free TCP port)",
                    launcher_name(n.launcher)));
  }
  out.master_addr = *addr;
  auto port = parse_int(env, "MASTER_PORT");
  if (!port.ok()) return port.status();
  if (*port < 1 || *port > 65535) {
    return invalid_input(fmt::format("MASTER_PORT={} is not a TCP port", *port));
  }
  out.master_port = *port;
  return out;
}

}  // namespace

std::string_view launcher_name(Launcher l) {
  switch (l) {
    case Launcher::kProbe:
      return "probe";
    case Launcher::kTorchrun:
      return "torchrun";
    case Launcher::kOpenMpi:
      return "openmpi";
    case Launcher::kPmi:
      return "pmi";
  }
  return "unknown";
}

EnvLookup process_env() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* v = std::getenv(std::string(name).c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

Result<std::optional<RankEnv>> rank_env_from(const EnvLookup& env) {
  std::optional<Names> names;
  if (env("RANK") || env("WORLD_SIZE")) {
    names = Names{env(kProbeLauncherVar) ? Launcher::kProbe : Launcher::kTorchrun, "RANK",
                  "WORLD_SIZE", "LOCAL_RANK", ""};
  } else if (env("OMPI_COMM_WORLD_RANK")) {
    names = Names{Launcher::kOpenMpi, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                  "OMPI_COMM_WORLD_LOCAL_RANK", ""};
  } else if (env("PMI_RANK")) {
    names = Names{Launcher::kPmi, "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  }
  if (!names) return std::optional<RankEnv>();
  auto r = read(env, *names);
  if (!r.ok()) return r.status();
  return std::optional<RankEnv>(*r);
}

}  // namespace gpumem::probe
