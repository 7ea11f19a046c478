// Which frames of a parked thread's backtrace belong to the program: a
// parked thread sits in libc's futex call under the agent's frames, and
// neither says anything about the program. Shared by bug reports, the
// stepping session and the gdb server, so they all show the same frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "binary/Backtracer.h"
#include "binary/Symbolizer.h"

namespace ctrl {

// Index of the innermost program frame of `frames` (Backtracer::unwind's
// output): below libc's wait and the agent's frames when the thread is
// parked, 0 otherwise. frames.size() when there is none.
inline size_t first_program_frame(const std::vector<uint64_t>& frames, const Symbolizer& symbols) {
  auto ip_of = [&](size_t i) { return frames[i] & ~Backtracer::kExactIp; };
  auto in_agent = [&](size_t i) { return symbols.in_module(ip_of(i), "libctrl-agent"); };
  // Only libc's frames (the futex call) count as the wait: a thread running
  // its own code right under the agent's main wrapper (a hang in main)
  // keeps them.
  auto in_libc = [&](size_t i) { return symbols.in_module(ip_of(i), "libc.so"); };
  size_t first = 0;
  while (first < frames.size() && first < 4 && !in_agent(first) && in_libc(first)) ++first;
  if (first < frames.size() && in_agent(first)) {
    while (first < frames.size() && in_agent(first)) ++first;
    return first;
  }
  return 0;
}

// The program's frames, innermost first: from first_program_frame on,
// without the agent's thread and main wrappers further out.
inline std::vector<uint64_t> program_frames(const std::vector<uint64_t>& frames, const Symbolizer& symbols) {
  std::vector<uint64_t> out;
  for (size_t i = first_program_frame(frames, symbols); i < frames.size(); ++i)
    if (!symbols.in_module(frames[i] & ~Backtracer::kExactIp, "libctrl-agent")) out.push_back(frames[i]);
  return out;
}

}  // namespace ctrl
