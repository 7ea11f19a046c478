// The periodic progress line on stderr when stderr is not a terminal (a CI
// log, a file): CI runners kill jobs that stay silent, and a person reading
// the log later wants to know how far the search got. On a terminal the
// live line (\r-refreshed) does this instead.
//
// "ctrl: progress: 120 executions (118 complete, 2 blocked), 0 bugs, 10.0 s
// elapsed; remaining: at most 880 executions (--max-executions), 50 s of
// --time-limit" -- what is known about the remaining work: the limits' room
// and the preemption bound completed so far; a search whose size is
// unknown says so.
#pragma once

#include <cstdint>
#include <string>

namespace ctrl {

struct ProgressFacts {
  uint64_t executions = 0, complete = 0, blocked = 0, bugs = 0;
  double elapsed = 0;
  uint64_t max_executions = 0;  // as asked (UINT64_MAX: none)
  double time_limit = 0;        // seconds, 0: none
  int bound_completed = -1;     // preemption bound fully explored so far, -1: none or no bound
};

std::string progress_line(const ProgressFacts& f);

}  // namespace ctrl
