#include "Notice.h"

#include <cstdint>
#include <cstring>

#include "Framing.h"
#include "Runtime.h"

namespace ctrl::agent {

namespace {

size_t put_varint(char* out, uint64_t v) {
  size_t n = 0;
  do {
    out[n++] = char((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return n;
}

}  // namespace

void send_notice(const char* text) {
  if (rt.control_fd < 0) return;
  // ControlMessage { notice (field 10) = Notice { text (field 1) } }, by hand.
  constexpr size_t kMaxText = 900;
  size_t len = strnlen(text, kMaxText);
  char inner[kMaxText + 8];
  size_t n = 0;
  inner[n++] = char(1 << 3 | 2);
  n += put_varint(inner + n, len);
  memcpy(inner + n, text, len);
  n += len;
  char frame[kMaxText + 24];
  size_t m = 4;
  frame[m++] = char(10 << 3 | 2);
  m += put_varint(frame + m, n);
  memcpy(frame + m, inner, n);
  m += n;
  uint32_t body = uint32_t(m - 4);
  for (int i = 0; i < 4; ++i) frame[i] = char(body >> (8 * i));
  framing::write_all(rt.control_fd, frame, m);
}

}  // namespace ctrl::agent
