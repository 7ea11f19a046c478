#include "exploration/ProgressLine.h"

#include <fmt/format.h>

#include <algorithm>

namespace ctrl {

std::string progress_line(const ProgressFacts& f) {
  std::string remaining;
  auto add = [&](const std::string& s) { remaining += (remaining.empty() ? "" : ", ") + s; };
  if (f.max_executions != UINT64_MAX)
    add(fmt::format("at most {} executions (--max-executions)",
                    f.max_executions - std::min(f.max_executions, f.executions)));
  if (f.time_limit > 0) add(fmt::format("{:.0f} s of --time-limit", std::max(0.0, f.time_limit - f.elapsed)));
  if (f.bound_completed >= 0)
    add(fmt::format("every schedule with at most {} preemption{} ran", f.bound_completed,
                    f.bound_completed == 1 ? "" : "s"));
  if (remaining.empty()) remaining = "unknown (no limit, and the strategy does not know the search's size)";
  return fmt::format(
      "ctrl: progress: {} executions ({} complete, {} blocked), {} bug{}, {:.1f} s elapsed; remaining: {}",
      f.executions, f.complete, f.blocked, f.bugs, f.bugs == 1 ? "" : "s", f.elapsed, remaining);
}

}  // namespace ctrl
