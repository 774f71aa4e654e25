#include "probe/host_exchange.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

#include "probe/deadline.h"

namespace gpumem::probe {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the wire format copies integers in host order; all probe hosts are x86-64");

constexpr std::uint32_t kHelloMagic = 0x4f4c4548;  // "HELO"
constexpr std::uint32_t kFrameMagic = 0x584d5047;  // "GPMX"
constexpr std::size_t kHelloBytes = 16;            // magic, rank, world size, listen port
constexpr std::size_t kFrameHeaderBytes = 16;      // magic, tag length, payload length (u64)
constexpr std::size_t kTableEntryBytes = 8;        // IPv4 address, port
constexpr std::uint32_t kMaxTagBytes = 256;
constexpr int kPollSliceMs = 500;

std::string errno_text(int err) { return fmt::format("{} ({})", std::strerror(err), err); }

void put_u32(std::string& out, std::uint32_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_u64(std::string& out, std::uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
std::uint32_t get_u32(std::string_view in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}
std::uint64_t get_u64(std::string_view in, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

// Owns a file descriptor until released.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      if (fd_ >= 0) ::close(fd_);
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

Status set_socket_options(int fd) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return io_error("fcntl(O_NONBLOCK) on a socket failed: " + errno_text(errno));
  }
  // Collectives are a few small messages; Nagle's delay would only add latency.
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return Status::ok_status();
}

// Sends all of `data` on a non-blocking socket before the deadline.
Status send_all(int fd, std::string_view data, const Deadline& deadline, std::string_view what) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: send failed: {}", what, errno_text(errno)));
    }
    if (deadline.expired()) {
      return Status(StatusCode::kAborted, fmt::format("{}: timed out after {} s while sending",
                                                      what, deadline.timeout_s()));
    }
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, deadline.poll_ms(kPollSliceMs));
  }
  return Status::ok_status();
}

// Receives exactly `n` bytes on a non-blocking socket before the deadline.
Result<std::string> recv_exact(int fd, std::size_t n, const Deadline& deadline,
                               std::string_view what) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, out.data() + got, n - got, 0);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r == 0) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: the peer closed the connection (it exited)", what));
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: recv failed: {}", what, errno_text(errno)));
    }
    if (deadline.expired()) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: timed out after {} s", what, deadline.timeout_s()));
    }
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, deadline.poll_ms(kPollSliceMs));
  }
  return out;
}

// A listening socket on INADDR_ANY:port (port 0: the kernel picks). Returns it and its port.
Result<std::pair<Fd, int>> listen_on(int port, int backlog) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return io_error("socket() failed: " + errno_text(errno));
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    return io_error(fmt::format("bind(0.0.0.0:{}) failed: {}", port, errno_text(errno)));
  }
  if (::listen(fd.get(), backlog) < 0) {
    return io_error(fmt::format("listen(port {}) failed: {}", port, errno_text(errno)));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
    return io_error("getsockname() failed: " + errno_text(errno));
  }
  GPUMEM_RETURN_IF_ERROR(set_socket_options(fd.get()));
  return std::pair<Fd, int>(std::move(fd), ntohs(addr.sin_port));
}

// Accepts one connection before the deadline.
Result<Fd> accept_one(int listen_fd, const Deadline& deadline, std::string_view what) {
  while (true) {
    const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      Fd owned(fd);
      GPUMEM_RETURN_IF_ERROR(set_socket_options(fd));
      return owned;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
      return io_error(fmt::format("{}: accept failed: {}", what, errno_text(errno)));
    }
    if (deadline.expired()) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: timed out after {} s", what, deadline.timeout_s()));
    }
    pollfd p{listen_fd, POLLIN, 0};
    ::poll(&p, 1, deadline.poll_ms(kPollSliceMs));
  }
}

// Connects to addr:port, retrying with a growing pause until the deadline: the listener
// may not exist yet (rank 0 starts at the same time as the others).
Result<Fd> connect_with_retry(const sockaddr_in& addr, const Deadline& deadline,
                              std::string_view what) {
  auto pause = std::chrono::milliseconds(20);
  std::string last_error = "no attempt";
  while (true) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return io_error("socket() failed: " + errno_text(errno));
    GPUMEM_RETURN_IF_ERROR(set_socket_options(fd.get()));
    int rc = ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    if (rc < 0 && errno == EINPROGRESS) {
      pollfd p{fd.get(), POLLOUT, 0};
      ::poll(&p, 1, deadline.poll_ms(1000));
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if ((p.revents & POLLOUT) && err == 0) rc = 0;
      errno = err != 0 ? err : ETIMEDOUT;
    }
    if (rc == 0) return fd;
    last_error = errno_text(errno);
    if (deadline.expired()) {
      return Status(StatusCode::kAborted,
                    fmt::format("{}: no connection within {} s (last error: {})", what,
                                deadline.timeout_s(), last_error));
    }
    std::this_thread::sleep_for(std::min(pause, deadline.remaining()));
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

Result<sockaddr_in> resolve_ipv4(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return invalid_input(fmt::format("MASTER_ADDR '{}' does not resolve to an IPv4 address: {}",
                                     host, ::gai_strerror(rc)));
  }
  sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(found->ai_addr);
  ::freeaddrinfo(found);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

std::string hello(std::uint32_t rank, std::uint32_t world, std::uint32_t port) {
  std::string out;
  put_u32(out, kHelloMagic);
  put_u32(out, rank);
  put_u32(out, world);
  put_u32(out, port);
  return out;
}

struct Hello {
  int rank;
  int world;
  int port;
};

Result<Hello> read_hello(int fd, const Deadline& deadline, std::string_view what) {
  auto raw = recv_exact(fd, kHelloBytes, deadline, what);
  if (!raw.ok()) return raw.status();
  if (get_u32(*raw, 0) != kHelloMagic) {
    return invalid_input(fmt::format(
        "{}: the peer is not a gpumem probe rank (bad greeting); is MASTER_PORT taken by "
        "another program?",
        what));
  }
  return Hello{static_cast<int>(get_u32(*raw, 4)), static_cast<int>(get_u32(*raw, 8)),
               static_cast<int>(get_u32(*raw, 12))};
}

}  // namespace

std::string join_ranks(std::span<const int> ranks) {
  std::string out;
  for (int r : ranks) {
    if (!out.empty()) out += ", ";
    out += std::to_string(r);
  }
  return out;
}

Result<int> find_free_port() {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return io_error("socket() failed: " + errno_text(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    return io_error("bind(127.0.0.1:0) failed: " + errno_text(errno));
  }
  socklen_t len = sizeof addr;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) < 0) {
    return io_error("getsockname() failed: " + errno_text(errno));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

Result<std::unique_ptr<HostExchange>> HostExchange::connect(const ExchangeOptions& options) {
  const int world = options.world_size;
  const int me = options.rank;
  if (world < 1 || me < 0 || me >= world) {
    return invalid_input(fmt::format("rank {} is outside a world of {} ranks", me, world));
  }
  if (options.master_port < 1 || options.master_port > 65535) {
    return invalid_input(fmt::format("MASTER_PORT {} is not a TCP port", options.master_port));
  }
  std::vector<int> fds(static_cast<std::size_t>(world), -1);
  std::vector<Fd> owned(static_cast<std::size_t>(world));
  auto finish = [&]() -> std::unique_ptr<HostExchange> {
    for (int r = 0; r < world; ++r) fds[r] = owned[r].release();
    return std::unique_ptr<HostExchange>(new HostExchange(options, fds));
  };
  if (world == 1) return finish();

  const Deadline deadline(options.timeout);
  const std::string who = fmt::format("rank {}", me);

  if (me == 0) {
    auto listener = listen_on(options.master_port, world);
    if (!listener.ok()) {
      return Status(listener.status().code(),
                    fmt::format("rank 0: cannot listen on MASTER_PORT {}: {}", options.master_port,
                                listener.status().message()));
    }
    std::vector<std::uint32_t> ips(world, 0);
    std::vector<int> ports(world, 0);
    for (int joined = 1; joined < world; ++joined) {
      auto conn = accept_one(listener->first.get(), deadline, "rank 0 waiting for ranks");
      if (!conn.ok() && conn.status().code() != StatusCode::kAborted) return conn.status();
      if (!conn.ok()) {
        std::vector<int> missing;
        for (int r = 1; r < world; ++r) {
          if (owned[r].get() < 0) missing.push_back(r);
        }
        return Status(StatusCode::kAborted,
                      fmt::format("rank 0: timed out after {} s waiting for rank(s) {} to connect "
                                  "to port {}",
                                  deadline.timeout_s(), join_ranks(missing), options.master_port));
      }
      auto h = read_hello(conn->get(), deadline, "rank 0 reading a rank's greeting");
      if (!h.ok()) return h.status();
      if (h->world != world) {
        return invalid_input(fmt::format(
            "rank {} was started with WORLD_SIZE {} but rank 0 with {}", h->rank, h->world, world));
      }
      if (h->rank <= 0 || h->rank >= world || owned[h->rank].get() >= 0) {
        return invalid_input(
            fmt::format("two processes claim rank {} (or it is out of range)", h->rank));
      }
      sockaddr_in peer{};
      socklen_t len = sizeof peer;
      ::getpeername(conn->get(), reinterpret_cast<sockaddr*>(&peer), &len);
      ips[h->rank] = peer.sin_addr.s_addr;
      ports[h->rank] = h->port;
      owned[h->rank] = std::move(*conn);
    }
    std::string table;
    for (int r = 0; r < world; ++r) {
      put_u32(table, ips[r]);
      put_u32(table, static_cast<std::uint32_t>(ports[r]));
    }
    for (int r = 1; r < world; ++r) {
      GPUMEM_RETURN_IF_ERROR(
          send_all(owned[r].get(), table, deadline, fmt::format("rank 0 sending to rank {}", r)));
    }
    return finish();
  }

  // Ranks 1..world-1: own listener first, so that higher ranks can connect as soon as
  // rank 0 hands out the table.
  auto listener = listen_on(0, world);
  if (!listener.ok()) return listener.status();
  auto master = resolve_ipv4(options.master_addr, options.master_port);
  if (!master.ok()) return master.status();
  auto to_master =
      connect_with_retry(*master, deadline,
                         fmt::format("{} connecting to rank 0 at MASTER_ADDR:MASTER_PORT {}:{}",
                                     who, options.master_addr, options.master_port));
  if (!to_master.ok()) return to_master.status();
  GPUMEM_RETURN_IF_ERROR(send_all(to_master->get(),
                                  hello(me, world, static_cast<std::uint32_t>(listener->second)),
                                  deadline, who + " greeting rank 0"));
  auto table = recv_exact(to_master->get(), kTableEntryBytes * world, deadline,
                          who + " waiting for the address table from rank 0");
  if (!table.ok()) return table.status();
  owned[0] = std::move(*to_master);

  for (int peer = 1; peer < me; ++peer) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = get_u32(*table, kTableEntryBytes * peer);
    addr.sin_port = htons(static_cast<std::uint16_t>(get_u32(*table, kTableEntryBytes * peer + 4)));
    auto conn =
        connect_with_retry(addr, deadline, fmt::format("{} connecting to rank {}", who, peer));
    if (!conn.ok()) return conn.status();
    GPUMEM_RETURN_IF_ERROR(send_all(conn->get(), hello(me, world, 0), deadline,
                                    fmt::format("{} greeting rank {}", who, peer)));
    owned[peer] = std::move(*conn);
  }
  for (int joined = me + 1; joined < world; ++joined) {
    auto conn = accept_one(listener->first.get(), deadline,
                           fmt::format("{} waiting for higher ranks to connect", who));
    if (!conn.ok()) return conn.status();
    auto h = read_hello(conn->get(), deadline, who + " reading a higher rank's greeting");
    if (!h.ok()) return h.status();
    if (h->rank <= me || h->rank >= world || owned[h->rank].get() >= 0) {
      return invalid_input(fmt::format("{}: unexpected greeting from rank {}", who, h->rank));
    }
    owned[h->rank] = std::move(*conn);
  }
  return finish();
}

HostExchange::HostExchange(ExchangeOptions options, std::vector<int> fds)
    : options_(std::move(options)), fds_(std::move(fds)), inbox_(fds_.size()) {}

HostExchange::~HostExchange() {
  for (int fd : fds_) {
    if (fd >= 0) ::close(fd);
  }
}

Result<bool> HostExchange::take_frame(int peer, std::string_view tag, std::string& payload) {
  std::string& in = inbox_[peer];
  if (in.size() < kFrameHeaderBytes) return false;
  if (get_u32(in, 0) != kFrameMagic) {
    return internal_error(fmt::format("rank {}: corrupt message from rank {}", rank(), peer));
  }
  const std::uint32_t tag_len = get_u32(in, 4);
  const std::uint64_t payload_len = get_u64(in, 8);
  if (tag_len > kMaxTagBytes) {
    return internal_error(fmt::format("rank {}: corrupt message from rank {}", rank(), peer));
  }
  if (in.size() < kFrameHeaderBytes + tag_len + payload_len) return false;
  const std::string_view got_tag(in.data() + kFrameHeaderBytes, tag_len);
  if (got_tag != tag) {
    return internal_error(
        fmt::format("rank {} is in collective '{}' but rank {} sent '{}': the ranks ran different "
                    "sequences of collectives",
                    rank(), tag, peer, got_tag));
  }
  payload.assign(in.data() + kFrameHeaderBytes + tag_len, payload_len);
  in.erase(0, kFrameHeaderBytes + tag_len + payload_len);
  return true;
}

Result<std::vector<std::string>> HostExchange::all_gather(std::string_view tag,
                                                          std::span<const int> ranks,
                                                          std::string_view mine) {
  const int me = rank();
  int my_pos = -1;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 0 || ranks[i] >= world_size() || (i > 0 && ranks[i] <= ranks[i - 1])) {
      return invalid_input(
          fmt::format("all_gather '{}': ranks [{}] are not strictly ascending "
                      "world ranks below {}",
                      tag, join_ranks(ranks), world_size()));
    }
    if (ranks[i] == me) my_pos = static_cast<int>(i);
  }
  if (my_pos < 0) {
    return invalid_input(fmt::format("all_gather '{}': rank {} is not among ranks [{}]", tag, me,
                                     join_ranks(ranks)));
  }
  if (tag.size() > kMaxTagBytes) return invalid_input("collective tag too long");

  std::string frame;
  put_u32(frame, kFrameMagic);
  put_u32(frame, static_cast<std::uint32_t>(tag.size()));
  put_u64(frame, mine.size());
  frame.append(tag);
  frame.append(mine);

  std::vector<std::string> result(ranks.size());
  result[my_pos] = std::string(mine);
  struct PeerState {
    int rank;
    std::size_t pos;
    std::size_t sent = 0;
    bool received = false;
  };
  std::vector<PeerState> peers;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] != me) peers.push_back({ranks[i], i});
  }

  const Deadline deadline(options_.timeout);
  std::vector<pollfd> pfds;
  std::vector<std::size_t> pfd_peer;
  char buf[65536];
  while (true) {
    for (PeerState& p : peers) {
      if (p.received) continue;
      auto took = take_frame(p.rank, tag, result[p.pos]);
      if (!took.ok()) return took.status();
      p.received = *took;
    }
    pfds.clear();
    pfd_peer.clear();
    for (std::size_t i = 0; i < peers.size(); ++i) {
      const PeerState& p = peers[i];
      short events = 0;
      if (p.sent < frame.size()) events |= POLLOUT;
      if (!p.received) events |= POLLIN;
      if (events != 0) {
        pfds.push_back({fds_[p.rank], events, 0});
        pfd_peer.push_back(i);
      }
    }
    if (pfds.empty()) return result;
    if (deadline.expired()) {
      std::vector<int> waiting;
      for (const PeerState& p : peers) {
        if (!p.received || p.sent < frame.size()) waiting.push_back(p.rank);
      }
      return Status(StatusCode::kAborted,
                    fmt::format("rank {}: timed out after {} s in collective '{}' waiting for "
                                "rank(s) {}",
                                me, deadline.timeout_s(), tag, join_ranks(waiting)));
    }
    const int n = ::poll(pfds.data(), pfds.size(), deadline.poll_ms(kPollSliceMs));
    if (n < 0 && errno != EINTR) {
      return io_error(fmt::format("rank {}: poll failed: {}", me, errno_text(errno)));
    }
    for (std::size_t k = 0; k < pfds.size(); ++k) {
      PeerState& p = peers[pfd_peer[k]];
      const short rev = pfds[k].revents;
      const auto peer_gone = [&](std::string_view how) {
        return Status(StatusCode::kAborted,
                      fmt::format("rank {}: rank {} {} during collective '{}' (it exited or "
                                  "crashed)",
                                  me, p.rank, how, tag));
      };
      if ((rev & POLLOUT) && p.sent < frame.size()) {
        const ssize_t w =
            ::send(fds_[p.rank], frame.data() + p.sent, frame.size() - p.sent, MSG_NOSIGNAL);
        if (w > 0) {
          p.sent += static_cast<std::size_t>(w);
        } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          return peer_gone("closed its connection");
        }
      }
      if (rev & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t r = ::recv(fds_[p.rank], buf, sizeof buf, 0);
        if (r > 0) {
          inbox_[p.rank].append(buf, static_cast<std::size_t>(r));
        } else if (r == 0) {
          return peer_gone("closed its connection");
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          return peer_gone("reset its connection");
        }
      }
    }
  }
}

Result<std::vector<std::string>> HostExchange::all_gather_world(std::string_view tag,
                                                                std::string_view mine) {
  std::vector<int> all(static_cast<std::size_t>(world_size()));
  for (int r = 0; r < world_size(); ++r) all[r] = r;
  return all_gather(tag, all, mine);
}

Status HostExchange::barrier(std::string_view tag) {
  auto r = all_gather_world(tag, {});
  return r.ok() ? Status::ok_status() : r.status();
}

std::vector<int> HostExchange::closed_peers() const {
  std::vector<int> closed;
  for (int r = 0; r < world_size(); ++r) {
    if (fds_[r] < 0) continue;
    pollfd p{fds_[r], static_cast<short>(POLLIN | POLLRDHUP), 0};
    if (::poll(&p, 1, 0) <= 0) continue;
    if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) {
      closed.push_back(r);
      continue;
    }
    char c;
    if (::recv(fds_[r], &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0) closed.push_back(r);
  }
  return closed;
}

}  // namespace gpumem::probe
