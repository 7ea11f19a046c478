#include "reports/ThreadsAtBug.h"

#include "binary/Backtracer.h"
#include "binary/ProgramFrames.h"
#include "binary/Symbolizer.h"

namespace ctrl {

bool listed_at_bug(const ThreadBacktrace& bt) { return bt.thread != UINT32_MAX; }

bool frames_shown_at_bug(const ThreadBacktrace& bt) { return bt.state != "finished"; }

uint64_t frame_address(const ThreadBacktrace& bt, size_t i) {
  uint64_t ip = bt.frames[i] & ~Backtracer::kExactIp;
  return (bt.frames[i] & Backtracer::kExactIp) || ip == 0 ? ip : ip - 1;
}

std::optional<uint64_t> bug_place(const ExecutionResult& r, const Symbolizer& symbols) {
  for (const ThreadBacktrace& bt : r.backtraces) {
    if (bt.thread != r.thread || !frames_shown_at_bug(bt)) continue;
    for (size_t i = first_program_frame(bt.frames, symbols); i < bt.frames.size(); ++i)
      if (!symbols.in_module(bt.frames[i] & ~Backtracer::kExactIp, "libctrl-agent")) return frame_address(bt, i);
  }
  if (!r.site) return std::nullopt;
  // Agent-reported bugs carry the return address of the failing call.
  bool call_site = r.facts.at_return_address;
  return call_site ? r.site - 1 : r.site;
}

}  // namespace ctrl
