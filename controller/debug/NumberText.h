// Numbers as users type them at the stepping prompt and in locations:
// decimal, or hexadecimal after 0x.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

namespace ctrl {

// The whole text as a number, or nothing (not a number, out of range).
inline std::optional<uint64_t> parse_number(const std::string& text) {
  uint64_t v = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    begin += 2;
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(begin, end, v, base);
  if (begin == end || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace ctrl
