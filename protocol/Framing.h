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

// Frames up to this size are built and parsed on the stack, never on the
// heap: the agent sends and receives them inside the program, whose heap must
// not depend on what a message holds. A message's size varies with the
// varint length of a pid (16384 and up take a byte more), and a buffer one
// byte longer can take a heap chunk 16 bytes larger: every later heap
// address of the program moved by 16 bytes when the recording and the replay
// ran with pids on either side (issue 22, item 11). Larger frames (a long
// path) use the heap; their size does not depend on the run.
inline constexpr size_t kStackFrame = 1024;

template <class Message>
bool send_message(int fd, const Message& m) {
  size_t size = m.ByteSizeLong();
  if (size > kMaxMessage) return false;
  auto put_length = [size](unsigned char* p) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(size >> (8 * i));
  };
  // One send per frame: several processes (the fork server and an execution)
  // write to the same socket, and a frame must not be split between writers.
  if (size + 4 <= kStackFrame) {
    unsigned char frame[kStackFrame];
    put_length(frame);
    if (!m.SerializeToArray(frame + 4, int(size))) return false;
    return write_all(fd, frame, size + 4);
  }
  std::string frame(size + 4, '\0');
  put_length(reinterpret_cast<unsigned char*>(frame.data()));
  if (!m.SerializeToArray(frame.data() + 4, int(size))) return false;
  return write_all(fd, frame.data(), frame.size());
}

// False on end of stream, a short read, an oversized or unparsable message.
template <class Message>
bool receive_message(int fd, Message& m) {
  unsigned char buf[4];
  if (!read_all(fd, buf, 4)) return false;
  uint32_t len = uint32_t(buf[0]) | uint32_t(buf[1]) << 8 | uint32_t(buf[2]) << 16 | uint32_t(buf[3]) << 24;
  if (len > kMaxMessage) return false;
  if (len <= kStackFrame) {
    unsigned char bytes[kStackFrame];
    if (!read_all(fd, bytes, len)) return false;
    return m.ParseFromArray(bytes, int(len));
  }
  std::string bytes(len, '\0');
  if (!read_all(fd, bytes.data(), len)) return false;
  return m.ParseFromString(bytes);
}

}  // namespace ctrl::framing
