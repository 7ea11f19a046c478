// Data races in one sequentially consistent execution (--model sc, and the
// SC-ordered event log of tso/pso runs), found by happens-before over its
// event log with vector clocks (the model of C11 and of ThreadSanitizer):
// two accesses to a common byte by different threads, at least one a write
// and at least one not atomic, neither ordered before the other.
//
// Happens-before is program order plus:
//  * thread creation (the create before the child's start) and joins (the
//    thread's exit before the join), and every thread exit before every
//    later thread creation (a new thread may reuse an exited one's stack:
//    glibc's stack cache is invisible here);
//  * synchronisation objects: every operation on one object (a mutex, a
//    condition, a semaphore, an rwlock, a barrier, a futex word, the kernel
//    wait objects of Dependence.h) is ordered after the earlier ones on it,
//    in log order (conservative: a trylock that failed orders too);
//  * atomic accesses by reads-from: under SC a read reads the last write to
//    its bytes, and every atomic access is taken as acquire/release (the
//    order of an inline atomic is not visible; relaxed taken as release
//    can only hide a race, never invent one).
//
// Which accesses are atomic: libatomic calls, locked instructions (xchg
// included) and futex words by the event; a plain instruction access when
// (1) its bytes are an atomic or volatile variable or field (DeclaredAtomics:
// DWARF), (2) an atomic event of the same execution touched one of its bytes,
// or (3) its instruction was inlined from an atomic member function. The
// evidence is per byte: a plain field beside an atomic one stays plain.
// (2) looks at this execution only, not at earlier ones: a verdict must not
// depend on which executions ran before (replay, -j N).
//
// Linear in the events: a location is a byte, or a whole access when no
// access of another shape overlaps it in the execution (AccessShapes.h);
// plus a clock copy (one entry per thread) per synchronisation.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "DeclaredAtomics.h"
#include "SharedRegion.h"
#include "Strategy.h"

namespace ctrl {

struct HbRaceCheck {
  // The first race by its later access (at most one), as a model bug
  // (BugKind::DataRace; facts.accesses: the two steps, facts.address: a byte
  // of both).
  std::vector<Strategy::ModelBug> races;
  // What was treated as atomic, in order of first access: DWARF variables
  // and inline scopes by name; locations of atomic events by address (name
  // empty: the controller names them). At most kMaxTreated per evidence.
  struct Treated {
    AtomicEvidence why = AtomicEvidence::None;
    uint64_t address = 0;
    std::string name;
  };
  static constexpr size_t kMaxTreated = 6;
  std::vector<Treated> treated;
  uint64_t treated_more = 0;   // beyond kMaxTreated
  uint64_t plain_atomic = 0;   // plain instruction accesses taken for atomic ones
  uint64_t plain_checked = 0;  // plain instruction accesses race-checked
  bool stopped = false;        // gave up when asked to
};

// `stop` (polled every 4096 events; may be empty): gives up, with no race
// and `stopped` set (Ctrl-C or the time limit must not wait for a long log).
HbRaceCheck find_hb_races(const shm::Event* events, uint64_t n, const DeclaredAtomics& declared,
                          const std::function<bool()>& stop = {},
                          const std::vector<std::pair<uint64_t, uint64_t>>* checked = nullptr);
// `checked` (sorted [start, end) ranges; null: every address): only races on
// bytes inside them are reported (happens-before is computed over all).

}  // namespace ctrl
