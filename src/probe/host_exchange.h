// Host-side exchange between the ranks of one probe run: the probe's stand-in for the gloo
// process group that serving engines use next to NCCL.
//
// It carries the small values of a start-up (each rank's free memory for a MIN, IPC handles
// of custom all-reduce buffers, the ncclUniqueId of each communicator) and synchronises the
// ranks. It takes no GPU memory and touches no CUDA state, so it is built and tested on
// machines without a GPU.
//
// Topology: every pair of ranks holds one TCP connection (a full mesh). Rank 0 listens on
// MASTER_ADDR:MASTER_PORT; the others connect to it (retrying with backoff), send the port of
// their own listening socket, receive everybody's address, then connect to each other. A mesh
// lets a collective over a subset of ranks (a TP group that does not contain rank 0) run
// without a relay.
//
// Invariants: every collective is made by all the ranks it names, in the same order (as in
// torch.distributed). Each message carries the operation's tag, so ranks that disagree about
// which collective they are in fail with a message naming both tags instead of exchanging
// garbage. Every wait is bounded by the timeout; a peer that exits is reported by rank.
#ifndef GPUMEM_PROBE_HOST_EXCHANGE_H_
#define GPUMEM_PROBE_HOST_EXCHANGE_H_

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gpumem::probe {

struct ExchangeOptions {
  int rank = 0;
  int world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  std::chrono::milliseconds timeout{120'000};
};

class HostExchange {
 public:
  // Builds the mesh. Returns kAborted when a peer did not show up within the timeout,
  // kInvalidInput for a malformed address or inconsistent rank numbers.
  static Result<std::unique_ptr<HostExchange>> connect(const ExchangeOptions& options);

  ~HostExchange();
  HostExchange(const HostExchange&) = delete;
  HostExchange& operator=(const HostExchange&) = delete;

  int rank() const { return options_.rank; }
  int world_size() const { return options_.world_size; }

  // Every rank in `ranks` (world ranks, strictly ascending, including this one) contributes
  // `mine`; the result holds each contribution at its rank's position in `ranks`.
  Result<std::vector<std::string>> all_gather(std::string_view tag, std::span<const int> ranks,
                                              std::string_view mine);
  Result<std::vector<std::string>> all_gather_world(std::string_view tag, std::string_view mine);
  Status barrier(std::string_view tag);

  // Peers whose connection is closed: their process exited. Used to say which peer a stuck
  // NCCL call was waiting for.
  std::vector<int> closed_peers() const;

 private:
  HostExchange(ExchangeOptions options, std::vector<int> fds);

  // Takes one complete frame from `inbox_[peer]` if there is one. Returns true and fills
  // `payload` when a frame with `tag` was taken; an error for a frame with another tag.
  Result<bool> take_frame(int peer, std::string_view tag, std::string& payload);

  ExchangeOptions options_;
  std::vector<int> fds_;            // socket per world rank; -1 for this rank
  std::vector<std::string> inbox_;  // bytes received from each peer and not yet consumed
};

// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's choice). The port
// is released before returning, so another process may take it first: callers that bind it
// report "address in use" clearly.
Result<int> find_free_port();

// "0, 2, 3" — for messages that list ranks.
std::string join_ranks(std::span<const int> ranks);

}  // namespace gpumem::probe

#endif  // GPUMEM_PROBE_HOST_EXCHANGE_H_
