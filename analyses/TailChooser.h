// The in-agent half of a strategy: which enabled thread runs next once the
// controller's prefix of decisions is used up. Runs on the target's hot path,
// so it is header-only, allocation-free and takes a bit set.
#pragma once

#include <cstdint>

#include "SharedRegion.h"

namespace ctrl {

// splitmix64: a full-period generator with good mixing from any seed.
inline uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seed of execution `index` of a random exploration started from `seed`.
inline uint64_t execution_seed(uint64_t seed, uint64_t index) {
  uint64_t s = seed ^ (index * 0xd1b54a32d192ed03ULL);
  return next_random(s);
}

// `enabled` must not be empty. `current` is the thread that reached the
// scheduling point; `last` the thread chosen at the previous step.
inline uint32_t choose_tail(shm::TailPolicy policy, uint64_t enabled, uint32_t current, uint32_t last,
                            uint64_t& rng) {
  switch (policy) {
    case shm::TailPolicy::Random: {
      uint32_t n = uint32_t(__builtin_popcountll(enabled));
      uint32_t k = uint32_t(next_random(rng) % n);
      uint64_t m = enabled;
      while (k--) m &= m - 1;
      return uint32_t(__builtin_ctzll(m));
    }
    case shm::TailPolicy::RoundRobin: {
      uint32_t from = (last + 1) % shm::kMaxThreads;
      uint64_t rotated = from == 0 ? enabled : (enabled >> from) | (enabled << (64 - from));
      return (uint32_t(__builtin_ctzll(rotated)) + from) % shm::kMaxThreads;
    }
    case shm::TailPolicy::Sticky:
    case shm::TailPolicy::Ask:  // past the controller's decisions: sticky
    case shm::TailPolicy::Pct:  // needs the execution's priorities: PctChooser
    case shm::TailPolicy::Pos:  // needs the operations' priorities: PosChooser
      if (enabled & (uint64_t(1) << current)) return current;
      return uint32_t(__builtin_ctzll(enabled));
  }
  return uint32_t(__builtin_ctzll(enabled));
}

// PCT's write steps: operations that change what another thread can see
// (stores, read-modify-writes and compare-exchanges, flushes, locks and
// unlocks, signals, posts, thread creation and exit, system calls).
// Loads, fences, yields, joins and a thread's start only read: preempting a
// thread just before one of them is what the write points of PCT give up.
// Counting a read as a write only adds change points; never the reverse.
inline bool pct_write_step(OpKind kind) {
  switch (kind) {
    case OpKind::None:
    case OpKind::ThreadStart:
    case OpKind::ThreadJoin:
    case OpKind::Yield:
    case OpKind::AtomicLoad:
    case OpKind::Fence:
    case OpKind::Load:
      return false;
    default:
      return true;
  }
}

// ExecutionPlan::pct_depth (shm::Header::pct_depth) holds PCT's depth d in
// its low byte, and this bit for an execution whose change points count
// write steps (PctChooser::writes_only).
inline constexpr uint32_t kPctWritePoints = 0x100;

// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
// Nagarakatte, ASPLOS 2010), for one execution of depth d:
//  * every thread (and TSO/PSO flush actor) gets an initial priority when
//    it is first seen enabled: it is inserted at a uniformly random rank
//    among the initial priorities handed out so far (lowered threads keep
//    their rank there), so the n initial priorities d .. d+n-1 are a
//    uniformly random permutation, as the paper's;
//  * at change point change[i] (i = 0 .. d-2) the thread that would run
//    drops to priority i + 1, below every initial priority;
//  * every step runs the enabled thread of highest priority.
// A change point is a step number (the paper's), or, with writes_only, the
// index of a write step (pct_write_step) taken where another thread could
// have run instead, counted from the end of the plan's prefix: the step
// where the thread about to write is the c-th such one drops it.
// So a bug of depth d among n threads is found with probability at least
// 1 / (n k^(d-1)) when the change points are drawn uniformly and distinct
// over the k steps (the controller draws them: PctStrategy); with
// writes_only, a bug whose d-1 preemptions each come just before a write,
// with k the write steps of the execution (those with a choice, which this
// counts, are fewer).
// Invariants: every thread in `seen` has a distinct initial priority in
// [depth, depth + assigned); lowered[t] is 0 or its change point's i + 1;
// `writes` is the number of write steps with a choice chosen so far.
struct PctChooser {
  uint32_t depth = 1;
  uint32_t assigned = 0;
  uint64_t seen = 0;
  bool writes_only = false;
  uint64_t writes = 0;
  uint32_t initial[shm::kMaxThreads] = {};
  uint32_t lowered[shm::kMaxThreads] = {};
  uint64_t change[shm::kMaxPctDepth - 1] = {};

  // A new execution: `changes` holds depth - 1 change points (UINT64_MAX:
  // unused); `d` is a plan's pct_depth (kPctWritePoints included).
  void reset(uint32_t d, const uint64_t* changes) {
    writes_only = (d & kPctWritePoints) != 0;
    d &= 0xff;
    depth = d < 1 ? 1 : d > shm::kMaxPctDepth ? shm::kMaxPctDepth : d;
    assigned = 0;
    seen = 0;
    writes = 0;
    for (uint32_t t = 0; t < shm::kMaxThreads; ++t) initial[t] = lowered[t] = 0;
    for (uint32_t i = 0; i + 1 < shm::kMaxPctDepth; ++i) change[i] = i + 1 < depth ? changes[i] : UINT64_MAX;
  }

  uint32_t priority(uint32_t t) const { return lowered[t] ? lowered[t] : initial[t]; }

  // The enabled thread of highest priority (every one of them seen).
  uint32_t highest(uint64_t enabled) const {
    uint32_t best = uint32_t(__builtin_ctzll(enabled)), best_priority = 0;
    for (uint64_t m = enabled; m; m &= m - 1) {
      uint32_t t = uint32_t(__builtin_ctzll(m));
      if (priority(t) > best_priority) best = t, best_priority = priority(t);
    }
    return best;
  }

  // The decision for step `step`; `enabled` must not be empty. `writing`:
  // the threads whose next operation is a write step (read only with
  // writes_only).
  uint32_t choose(uint64_t enabled, uint64_t step, uint64_t& rng, uint64_t writing = ~uint64_t(0)) {
    for (uint64_t fresh = enabled & ~seen; fresh; fresh &= fresh - 1) {
      uint32_t t = uint32_t(__builtin_ctzll(fresh));
      uint32_t rank = uint32_t(next_random(rng) % (assigned + 1));
      for (uint64_t m = seen; m; m &= m - 1) {
        uint32_t u = uint32_t(__builtin_ctzll(m));
        if (initial[u] >= depth + rank) ++initial[u];
      }
      initial[t] = depth + rank;
      ++assigned;
      seen |= uint64_t(1) << t;
    }
    uint32_t next = highest(enabled);
    if (writes_only) {
      // A change point only where the thread about to run writes and
      // another could run instead (preempting a thread where nobody else
      // can run delays nothing); counted as they are taken.
      bool choice = (enabled & (enabled - 1)) != 0;
      if (!choice || !(writing >> next & 1)) return next;
      step = writes;
    }
    for (uint32_t i = 0; i + 1 < depth; ++i)
      if (change[i] == step) {
        change[i] = UINT64_MAX;  // once: a write point's count can repeat
        lowered[next] = i + 1;
        next = highest(enabled);
        break;
      }
    if (writes_only && (writing >> next & 1)) ++writes;
    return next;
  }
};

// Partial order sampling (Yuan, Yang, Gu: "Partial Order Aware Concurrency
// Sampling", CAV 2018): every thread's next operation has a random
// priority; the enabled thread with the highest runs. Once an operation ran,
// its thread's next one, and every other thread's next operation that
// races with it (the agent's dependence relation, analyses/Dependence.h),
// draw new priorities. So two racing operations are ordered either way with
// probability about 1/2 each time they meet, whatever the execution's
// length, where a uniformly random walk favours the thread that has more
// steps to make. Invariant: priorities come only from `rng`.
struct PosChooser {
  uint64_t priority[shm::kMaxThreads] = {};

  void reset(uint64_t& rng) {
    for (auto& p : priority) p = next_random(rng);
  }
  // `enabled` must not be empty.
  uint32_t choose(uint64_t enabled) const {
    uint32_t best = uint32_t(__builtin_ctzll(enabled));
    for (uint64_t m = enabled & (enabled - 1); m; m &= m - 1) {
      uint32_t t = uint32_t(__builtin_ctzll(m));
      if (priority[t] > priority[best]) best = t;
    }
    return best;
  }
  // Thread `t` has a new next operation, or its next one raced with the
  // operation that just ran.
  void redraw(uint32_t t, uint64_t& rng) {
    if (t < shm::kMaxThreads) priority[t] = next_random(rng);
  }
};

}  // namespace ctrl
