// Fair scheduling of yielding threads (Musuvathi and Qadeer, "Fair stateless
// model checking", PLDI 2008). A yield (sched_yield, pthread_yield, the
// sleeps) says that the thread cannot progress until another one does: a
// thread that yields again while a thread that was enabled at its previous
// yield (or became disabled since) has not run since gives way to it. It
// is not chosen while one of those threads is enabled; the edge goes when
// that thread runs. So a retry loop with a yield runs at most two rounds
// while the thread it waits for stays parked.
//
// The relation is the paper's priority relation P: `below_[t]` holds the
// threads t gives way to. It stays acyclic (the thread that runs loses every
// edge into it, and only a yield adds edges, all out of the yielding thread),
// so whenever some thread is enabled one of them is allowed.
//
// A thread's first yield adds no edge (its window starts there): a single
// yield before a step the bug needs costs nothing. What the rule removes
// are schedules where a thread runs on past its second yield in a row while
// a thread it gave way to stays enabled and idle; those executions are not
// explored, and a search that needed one says so (DporStrategy counts them).
//
// PCT's write points use a weaker rule, `progress`: a step of a thread that
// has never yielded also ends every hold (and a yield after such a step
// adds none), so a spinning thread of high priority polls between the
// steps of the threads that make progress instead of waiting for every
// enabled thread, down to the lowest priority, to run first. It adds no
// endless execution the full rule prevents: in one, from some step on,
// either a thread that never yields runs forever (no yield rule can hold
// it back) or no such thread runs, and the rule is then the full one.
//
// Pure and allocation-free: the agent applies it on the hot path at every
// decision, and DporStrategy replays it over a logged execution to know
// which threads it could run at each state. Both call, for each step k,
// allowed(enabled set at decision k) then ran(thread of event k, whether it
// yielded, that enabled set): the same calls give the same answers.
#pragma once

#include <array>
#include <cstdint>

#include "SharedRegion.h"

namespace ctrl {

// The message of an execution the agent ends as blocked (sleep sets)
// because every awake thread gave way to sleeping ones: the unfair
// continuations it did not run are counted as cut by fairness.
inline constexpr char kFairBlocked[] = "fair yields";

class FairYields {
 public:
  // `progress`: the weaker rule above (PCT's write points only).
  void reset(bool progress = false) {
    *this = FairYields{};
    progress_ = progress;
  }

  // The threads of `enabled` (the enabled set at this decision) the rule
  // lets run. Never empty when `enabled` is not.
  uint64_t allowed(uint64_t enabled) {
    // Threads enabled at the previous decision that are not now were
    // disabled by the step between.
    for (uint64_t d = seen_enabled_ & ~enabled; d; d &= d - 1) disabled_at_[__builtin_ctzll(d)] = now_;
    seen_enabled_ = enabled;
    uint64_t held = 0;
    for (uint64_t g = givers_; g; g &= g - 1) {
      uint32_t t = uint32_t(__builtin_ctzll(g));
      if (below_[t] & enabled) held |= bit(t);
    }
    uint64_t ok = enabled & ~held;
    return ok ? ok : enabled;  // unreachable when acyclic; never starve
  }

  // Thread `t` took the step decided with `enabled`; `yielded`: it was a yield.
  void ran(uint32_t t, bool yielded, uint64_t enabled) {
    if (t >= shm::kMaxThreads) return;
    ++now_;
    ran_at_[t] = now_;
    if (progress_ && !yielded && !(yielded_ & bit(t))) {
      for (uint64_t g = givers_; g; g &= g - 1) below_[__builtin_ctzll(g)] = 0;
      givers_ = 0;
      progress_at_ = now_;
    }
    // Whoever gave way to t has seen it run.
    for (uint64_t g = givers_ & ~bit(t); g; g &= g - 1) {
      uint32_t x = uint32_t(__builtin_ctzll(g));
      below_[x] &= ~bit(t);
      if (!below_[x]) givers_ &= ~bit(x);
    }
    if (!yielded) return;
    if ((yielded_ & bit(t)) && !(progress_ && progress_at_ > yield_at_[t])) {
      // The threads enabled at t's previous yield or disabled since, that
      // have not run since.
      uint64_t h = window_[t];
      for (uint32_t u = 0; u < shm::kMaxThreads; ++u)
        if (disabled_at_[u] > yield_at_[t]) h |= bit(u);
      for (uint64_t m = h; m; m &= m - 1) {
        uint32_t u = uint32_t(__builtin_ctzll(m));
        if (ran_at_[u] > yield_at_[t]) h &= ~bit(u);
      }
      h &= ~bit(t);
      below_[t] |= h;
      if (below_[t]) givers_ |= bit(t);
    }
    yielded_ |= bit(t);
    yield_at_[t] = now_;
    window_[t] = enabled & ~bit(t);
  }

 private:
  static constexpr uint64_t bit(uint32_t t) { return uint64_t(1) << t; }

  bool progress_ = false;                                 // the weaker rule (reset)
  uint64_t progress_at_ = 0;                              // stamp of the latest step of a never-yielder
  uint64_t now_ = 0;                                      // steps taken (a step's stamp is now_ after it)
  uint64_t seen_enabled_ = 0;                             // the enabled set of the latest decision
  uint64_t yielded_ = 0;                                  // threads that yielded at least once
  uint64_t givers_ = 0;                                   // threads with a non-empty below_
  std::array<uint64_t, shm::kMaxThreads> below_{};        // P: t gives way to these
  std::array<uint64_t, shm::kMaxThreads> window_{};       // enabled at t's latest yield
  std::array<uint64_t, shm::kMaxThreads> yield_at_{};     // stamp of t's latest yield
  std::array<uint64_t, shm::kMaxThreads> ran_at_{};       // stamp of t's latest step
  std::array<uint64_t, shm::kMaxThreads> disabled_at_{};  // stamp of when t was last seen disabled
};

}  // namespace ctrl
