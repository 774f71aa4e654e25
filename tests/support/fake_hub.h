// A tiny Hugging Face Hub for tests: an HTTP/1.1 server on 127.0.0.1 (an ephemeral port) in a
// thread of the test, serving files by path, with `Range: bytes=a-b` requests answered 206,
// an X-Repo-Commit header on every file of a repository, 404 for anything else, and a
// record of the requests it saw. One request per connection (Connection: close).
#ifndef GPUMEM_TESTS_SUPPORT_FAKE_HUB_H_
#define GPUMEM_TESTS_SUPPORT_FAKE_HUB_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpumem {

class FakeHub {
 public:
  struct Request {
    std::string path;
    std::string range;  // "bytes=0-7", or empty
    std::string authorization;
  };

  FakeHub() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listener_, 16);
    socklen_t len = sizeof(addr);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeHub() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Serves `body` at /<repo>/resolve/<revision>/<file> for revision main and `commit`.
  void add_file(const std::string& repo, const std::string& commit, const std::string& file,
                const std::string& body) {
    std::lock_guard lock(mu_);
    for (const std::string& rev : {std::string("main"), commit}) {
      files_["/" + repo + "/resolve/" + rev + "/" + file] = {body, commit};
    }
  }
  // Answers every request with `status` (401: a gated repository).
  void answer_all(int status) { forced_status_ = status; }
  // Ignores Range headers and sends whole files with 200.
  void ignore_ranges() { ignore_ranges_ = true; }

  std::vector<Request> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  struct File {
    std::string body;
    std::string commit;
  };

  static std::string header_value(const std::string& head, const std::string& name) {
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const size_t at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    size_t begin = at + 2 + name.size() + 1;
    while (begin < head.size() && head[begin] == ' ') ++begin;
    return head.substr(begin, head.find("\r\n", begin) - begin);
  }

  void serve() {
    while (!stopping_) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::string head;
      char buffer[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(fd, buffer, sizeof(buffer));
        if (n <= 0) break;
        head.append(buffer, static_cast<size_t>(n));
      }
      respond(fd, head);
      ::close(fd);
    }
  }

  void respond(int fd, const std::string& head) {
    const size_t sp1 = head.find(' ');
    const size_t sp2 = head.find(' ', sp1 + 1);
    Request req{head.substr(sp1 + 1, sp2 - sp1 - 1), header_value(head, "range"),
                header_value(head, "authorization")};
    std::string status = "404 Not Found";
    std::string body = "Entry not found";
    std::string extra;
    {
      std::lock_guard lock(mu_);
      requests_.push_back(req);
      auto it = files_.find(req.path);
      if (forced_status_ != 0) {
        status = std::to_string(forced_status_) + " Refused";
        body = "refused";
      } else if (it != files_.end()) {
        status = "200 OK";
        body = it->second.body;
        extra = "X-Repo-Commit: " + it->second.commit + "\r\n";
        if (!req.range.empty() && !ignore_ranges_) {
          const size_t dash = req.range.find('-');
          const std::uint64_t first = std::stoull(req.range.substr(6, dash - 6));
          const std::uint64_t last = std::stoull(req.range.substr(dash + 1));
          body = first < body.size() ? body.substr(first, last - first + 1) : "";
          status = "206 Partial Content";
        }
      }
    }
    const std::string response = "HTTP/1.1 " + status +
                                 "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
                                 extra + "Connection: close\r\n\r\n" + body;
    size_t sent = 0;
    while (sent < response.size()) {
      const ssize_t n = ::send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, File> files_;
  std::vector<Request> requests_;
  int forced_status_ = 0;
  bool ignore_ranges_ = false;
};

}  // namespace gpumem

#endif  // GPUMEM_TESTS_SUPPORT_FAKE_HUB_H_
