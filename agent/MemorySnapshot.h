// The memory of a process, kept so that it can be put back in place: an
// execution that ran in this process is undone page by page, without a new
// process (issue 12: a fork, its page faults and its exit cost far more
// than the handful of pages an execution of a small program writes).
//
// How: a userfaultfd in asynchronous write-protect mode covers every private
// mapping, so the kernel marks each page the first time it is written (no
// fault reaches user space); PAGEMAP_SCAN lists the marked pages. At
// arm() every page of every writable private mapping is copied (or known to
// be zero). restore() copies back exactly the pages written since, removes
// the mappings created since, maps again the anonymous private mappings of
// the armed process that were removed or replaced (with their armed
// content; guard pages as such), puts back a piece of another armed private
// writable mapping that a new mapping replaced when its content is known
// page by page (TSan clears its shadow with MAP_FIXED), and checks that no
// other mapping of the armed process was removed or replaced.
//
// Invariants:
//  * All state lives in mappings of its own, outside the tracked memory
//    (excluded from the userfaultfd), so restore() never undoes itself and
//    its counters survive executions. It never allocates from the heap.
//  * A written page is not write-protected again: it joins the *hot* pages,
//    copied back after every execution (the pages a program writes in every
//    execution cost no fault after the first).
//  * Any other page an execution writes faults once (write-protected, or
//    not populated), and so does touching a new mapping: when the process's
//    fault count did not move and its size is the armed one, putting the hot
//    pages back is the whole restore (no page-table walk, which costs by the
//    page on this project's machines); otherwise the writable memory is
//    scanned and the mappings checked. (Not seen by that test: a mapping of
//    the armed process removed and another of the same size mapped and never
//    touched in one execution.)
//  * A mapping restore() maps again is as arm() left it: registered, its
//    populated pages holding their armed content and write-protected, its
//    others not populated (read as zero, as they did).
//  * restore() must run on a stack outside the tracked memory, with no other
//    thread of the process alive.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ctrl::agent {

struct MemoryRange {
  uint64_t start, end;
};

class MemorySnapshot {
 public:
  // Tracks every private mapping except `exclude` (the caller's own state
  // and stack). Returns nullptr, or why memory cannot be tracked here (a
  // static text: the kernel refuses the userfaultfd, a private writable
  // mapping cannot be registered ...).
  const char* arm(const MemoryRange* exclude, size_t nexclude);
  bool armed() const { return state_ != nullptr; }
  // Puts the memory back as it was at arm(). Returns nullptr, or what could
  // not be put back (the process must then not run another execution).
  // `heap_end_unmoved`: the caller knows the heap's end is the armed one
  // (heap_end()), which then needs no system call.
  const char* restore(bool heap_end_unmoved = false);
  // The heap's end (brk) at arm(), 0 before.
  uint64_t heap_end() const;
  // [addr, addr+len) overlaps memory tracked since arm().
  bool tracks(uint64_t addr, uint64_t len) const;

  struct State;

 private:
  State* state_ = nullptr;
};

}  // namespace ctrl::agent
