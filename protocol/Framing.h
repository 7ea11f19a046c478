// Length-prefixed protobuf messages on a stream socket: a 4-byte little-endian
// length, then the serialised message. Used on both ends of the control
// channel; everything here is blocking and retries on EINTR.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace ctrl::framing {

inline constexpr uint32_t kMaxMessage = 1u << 20;

inline bool write_all(int fd, const void* data, size_t len) {
  auto* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= size_t(n);
  }
  return true;
}

inline bool read_all(int fd, void* data, size_t len) {
  auto* p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = ::read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= size_t(n);
  }
  return true;
}

template <class Message>
bool send_message(int fd, const Message& m) {
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return false;
  uint32_t len = uint32_t(bytes.size());
  // One send per frame: several processes (the fork server and an execution)
  // write to the same socket, and a frame must not be split between writers.
  std::string frame{char(len), char(len >> 8), char(len >> 16), char(len >> 24)};
  frame += bytes;
  return write_all(fd, frame.data(), frame.size());
}

// False on end of stream, a short read, an oversized or unparsable message.
template <class Message>
bool receive_message(int fd, Message& m) {
  unsigned char buf[4];
  if (!read_all(fd, buf, 4)) return false;
  uint32_t len = uint32_t(buf[0]) | uint32_t(buf[1]) << 8 | uint32_t(buf[2]) << 16 | uint32_t(buf[3]) << 24;
  if (len > kMaxMessage) return false;
  std::string bytes(len, '\0');
  if (!read_all(fd, bytes.data(), len)) return false;
  return m.ParseFromString(bytes);
}

}  // namespace ctrl::framing
