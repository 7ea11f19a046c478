#include "gdb/GdbConnection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/ExitStatus.h"
#include "gdb/PeerOwner.h"

namespace ctrl {

namespace {

constexpr char kInterrupt = 0x03;
constexpr size_t kLoggedPayload = 200;  // longer payloads are cut in the log

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool needs_escape(char c) { return c == '$' || c == '#' || c == '}' || c == '*'; }

uint8_t checksum(std::string_view raw) {
  uint8_t sum = 0;
  for (char c : raw) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

// Packets carry binary data (memory, documents): the log shows it readable.
std::string printable(std::string_view payload) {
  std::string out;
  for (size_t i = 0; i < payload.size() && i < kLoggedPayload; ++i) {
    unsigned char c = static_cast<unsigned char>(payload[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    }
  }
  if (payload.size() > kLoggedPayload) out += "...";
  return out;
}

}  // namespace

int GdbConnection::listen_on(uint16_t port, uint16_t& bound_port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw InternalError(std::string("socket: ") + strerror(errno));
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(fd, 1) != 0) {
    int error = errno;
    close(fd);
    throw UsageError("cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + strerror(error));
  }
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  bound_port = ntohs(address.sin_port);
  return fd;
}

bool GdbConnection::own_user(int fd) {
  std::optional<uid_t> peer = tcp_peer_uid(fd);
  if (peer && *peer == geteuid()) return true;
  // The session goes on waiting: whoever connected first must not be able
  // to keep its owner out either.
  if (peer)
    std::fprintf(stderr, "ctrl: refused a gdb connection from uid %u: only uid %u (ctrl's user) may connect\n", *peer,
                 geteuid());
  else
    std::fprintf(stderr, "ctrl: refused a gdb connection whose user cannot be told (not in /proc/net/tcp)\n");
  return false;
}

int GdbConnection::accept_one(int listen_fd, const std::function<bool()>& stop) {
  int fd = -1;
  for (;;) {
    pollfd p{listen_fd, POLLIN, 0};
    int ready = poll(&p, 1, stop ? kStopCheckMs : -1);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0 && !own_user(fd)) {
        close(fd);
        fd = -1;
        continue;
      }
      if (fd >= 0 || (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED)) break;
    }
    if (stop && stop()) {
      close(listen_fd);
      return -1;
    }
  }
  int error = errno;
  close(listen_fd);
  if (fd < 0) throw InternalError(std::string("accept: ") + strerror(error));
  // Packets are small and answered one by one: Nagle would only delay them.
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

GdbConnection::GdbConnection(int fd, std::FILE* log) : fd_(fd), log_(log) {}

GdbConnection::~GdbConnection() {
  if (fd_ >= 0) close(fd_);
}

bool GdbConnection::fill(bool block) {
  if (closed_) return false;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int ready = poll(&p, 1, !block ? 0 : stop_ ? kStopCheckMs : -1);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) {
      closed_ = true;
      return false;
    }
    if (!block) return false;
    if (stop_ && stop_()) {
      closed_ = true;
      return false;
    }
  }
  char buffer[4096];
  ssize_t n;
  do {
    n = read(fd_, buffer, sizeof buffer);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  in_.append(buffer, static_cast<size_t>(n));
  return true;
}

void GdbConnection::skip_to_packet() {
  size_t i = 0;
  while (i < in_.size() && in_[i] != '$') {
    // Acks of packets already done with, and noise, mean nothing here.
    if (in_[i] == kInterrupt) interrupt_pending_ = true;
    ++i;
  }
  in_.erase(0, i);
}

bool GdbConnection::write_all(std::string_view bytes) {
  while (!bytes.empty() && !closed_) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return !closed_;
}

bool GdbConnection::decode(std::string_view raw, std::string& out, std::string& error) {
  out.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '}') {
      if (i + 1 == raw.size()) {
        error = "escape character at the end";
        return false;
      }
      out += static_cast<char>(raw[++i] ^ 0x20);
    } else if (c == '*') {
      // "X*n": X repeated n - 29 more times, n printable (so at least 3).
      if (out.empty() || i + 1 == raw.size()) {
        error = "run-length marker without a character or a count";
        return false;
      }
      int count = static_cast<unsigned char>(raw[++i]) - 29;
      if (count < 3 || count > 126 - 29) {
        error = "bad run length";
        return false;
      }
      out.append(static_cast<size_t>(count), out.back());
    } else {
      out += c;
    }
  }
  return true;
}

void GdbConnection::malformed(const std::string& why) {
  std::fprintf(stderr, "ctrl: malformed gdb packet (%s), replying E01\n", why.c_str());
  if (log_) std::fprintf(log_, "gdb: malformed packet: %s\n", why.c_str());
  send("E01");
}

GdbConnection::Incoming GdbConnection::receive() {
  for (;;) {
    skip_to_packet();
    if (interrupt_pending_) {
      interrupt_pending_ = false;
      if (log_) std::fprintf(log_, "gdb <- interrupt\n");
      return {Incoming::Kind::Interrupt, {}};
    }
    if (in_.empty()) {
      if (!fill(true)) return {Incoming::Kind::Closed, {}};
      continue;
    }
    size_t hash = in_.find('#');
    size_t restart = in_.find('$', 1);
    if (restart != std::string::npos && (hash == std::string::npos || restart < hash)) {
      // A packet cut short (gdb gave up on it and sent another): drop it.
      if (log_) std::fprintf(log_, "gdb: dropped an unterminated packet\n");
      in_.erase(0, restart);
      continue;
    }
    if (hash == std::string::npos) {
      if (in_.size() > kMaxPacket + 1) {
        in_.clear();
        malformed("longer than " + std::to_string(kMaxPacket) + " bytes");
        continue;
      }
      if (!fill(true)) return {Incoming::Kind::Closed, {}};
      continue;
    }
    if (in_.size() < hash + 3) {
      if (!fill(true)) return {Incoming::Kind::Closed, {}};
      continue;
    }
    std::string raw = in_.substr(1, hash - 1);
    int high = hex_digit(in_[hash + 1]), low = hex_digit(in_[hash + 2]);
    in_.erase(0, hash + 3);
    if (high < 0 || low < 0) {
      if (acks_) write_all("+");
      malformed("checksum is not two hex digits");
      continue;
    }
    if (checksum(raw) != high * 16 + low) {
      if (acks_) {
        if (log_) std::fprintf(log_, "gdb <- $%s (bad checksum, nacked)\n", printable(raw).c_str());
        write_all("-");
      } else {
        malformed("bad checksum");
      }
      continue;
    }
    if (acks_) write_all("+");
    std::string payload, error;
    if (!decode(raw, payload, error)) {
      malformed(error);
      continue;
    }
    if (log_) std::fprintf(log_, "gdb <- %s\n", printable(payload).c_str());
    return {Incoming::Kind::Packet, std::move(payload)};
  }
}

bool GdbConnection::poll_interrupt() {
  while (fill(false)) {
  }
  skip_to_packet();
  bool interrupted = interrupt_pending_;
  interrupt_pending_ = false;
  if (interrupted && log_) std::fprintf(log_, "gdb <- interrupt\n");
  return interrupted;
}

bool GdbConnection::send(std::string_view payload) {
  std::string frame = "$";
  for (char c : payload) {
    if (needs_escape(c)) {
      frame += '}';
      frame += static_cast<char>(c ^ 0x20);
    } else {
      frame += c;
    }
  }
  char tail[4];
  std::snprintf(tail, sizeof tail, "#%02x", checksum(std::string_view(frame).substr(1)));
  frame += tail;
  if (log_) std::fprintf(log_, "gdb -> %s\n", printable(payload).c_str());
  if (!write_all(frame)) return false;
  if (!acks_) return true;
  for (int attempts = 1;;) {
    if (in_.empty() && !fill(true)) return false;
    char c = in_[0];
    if (c == '$') return true;  // gdb went on without an ack: take it as one
    in_.erase(0, 1);
    if (c == '+') return true;
    if (c == kInterrupt) interrupt_pending_ = true;
    if (c == '-') {
      // gdb gives up after a few tries too; so do we, keeping the connection.
      if (++attempts > 5) return true;
      if (!write_all(frame)) return false;
    }
  }
}

}  // namespace ctrl
