// The steps of a reported execution that decided its bug, as a bug report
// marks them:
//
//  - preemptions: a step whose thread took over from one that could have
//    gone on (the steps the header's preemption count counts);
//  - deciding pairs: two conflicting operations of different threads that
//    nothing else orders (a reversible race in DPOR's sense: the latest
//    conflicting operation before a step that happens-before reaches only
//    through their own conflict). Their order is what one exploration tried
//    against the other, so the bug depends on it. Orders nobody can reverse
//    are left out: an unlock before the next lock of the mutex, a thread's
//    exit before its join, the process exit;
//  - who took a lock first: an acquisition (a lock, a woken wait taking its
//    mutex back) and the latest acquisition of the same object by another
//    thread before it, its own thread idle in between (it waited);
//  - with a pending operation: a thread blocked at the end (a deadlock,
//    a lost wake-up) conflicts with the step that made it wait: the lock
//    another thread took first, the signal that went before its wait.
//
// Computed from the execution's events alone, so `ctrl attach` and `ctrl
// replay` of its trace mark the same steps (the exploration that found the
// bug may have been shrunk since, its races would not be this schedule's).
//
// Invariants: pairs are (earlier, later) with earlier < later, sorted, each
// once; step indices are positions in `events`. Executions longer than
// kAnalysedSteps are analysed over their last kAnalysedSteps steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

struct CauseMarks {
  static constexpr size_t kAnalysedSteps = 20000;
  struct Pair {
    size_t first = 0, second = 0;  // steps, first < second
  };
  // A blocked thread's pending operation against the step it waits behind.
  struct PendingPair {
    size_t step = 0;
    uint32_t thread = 0;  // the blocked thread
    OpKind pending = OpKind::None;
    uint64_t addr = 0;
  };
  std::vector<size_t> preemptions;  // steps, ascending
  std::vector<Pair> pairs;
  std::vector<PendingPair> pending_pairs;

  bool preempts(size_t step) const;
  // The deciding pairs `step` belongs to: the other steps, ascending.
  std::vector<size_t> partners(size_t step) const;
  bool decides(size_t step) const;
};

// `pending`: what each thread still unfinished at the end was about to do
// (ExecutionResult::pending: thread, kind, addr).
CauseMarks find_cause(const std::vector<shm::Event>& events, const std::vector<shm::Event>& pending);

// Which steps a report prints: every marked step and its neighbours, each
// change of thread, and of a long run of one thread's unmarked steps its
// first and last ones (folded); all of them for a short execution.
std::vector<bool> steps_to_show(const std::vector<shm::Event>& events, const CauseMarks& marks);

}  // namespace ctrl

namespace ctrl {

class Symbolizer;

// What the interleaving's line for step k says after the operation:
// "  << preempts T1", "  << decides, with step 9", "" when unmarked.
std::string step_note(const std::vector<shm::Event>& events, const CauseMarks& marks, size_t k);

// The report's "what decided the bug" lines (each ending in a newline),
// naming the data and objects as the interleaving does; "" when nothing is
// marked.
std::string cause_text(const std::vector<shm::Event>& events, const CauseMarks& marks, const Symbolizer& symbols);

}  // namespace ctrl
