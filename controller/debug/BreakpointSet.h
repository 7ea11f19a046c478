// The stepping session's breakpoints and watchpoints: what the user (or gdb,
// through Z packets) set, and which one a thread's pending operation is at.
// `continue` asks before each step (DebugSession.h); `step` ignores them.
//
// Invariants:
//  - Numbers are given in order (1, 2, ...) and never reused, whether the
//    breakpoint is a code breakpoint or a watchpoint, and after removals.
//  - A function, FILE:LINE or variable that names nothing in the program
//    throws UsageError and adds nothing (an address is taken as given).
//  - all() keeps the order of adding; hit() returns the first that matches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

class Session;

struct Breakpoint {
  int number = 0;
  enum class Kind { Code, Watch } kind = Kind::Code;
  std::string spec;  // as the user wrote it
  // Code: matches an operation whose site is `address`, or lies in
  // [function_start, function_end) and, when line > 0, on that line of `file`.
  uint64_t address = 0;
  uint64_t function_start = 0, function_end = 0;
  std::string file;  // basename
  int line = 0;
  // An address breakpoint: every "file:line" starting at `address` (gdb
  // puts a line's breakpoint where optimised code may start several).
  std::vector<std::string> lines;
  // Watch: [address, address + size).
  uint64_t size = 0;
  uint64_t hits = 0;
};

class BreakpointSet {
 public:
  // Names and lines are looked up in `session`'s program.
  explicit BreakpointSet(Session& session) : session_(session) {}

  // LOCATION: an address, FILE:LINE or a function. Throws UsageError with
  // one line when it names nothing.
  const Breakpoint& add(const std::string& location);
  // TARGET: a variable (optionally &name) or an address (one byte).
  const Breakpoint& add_watch(const std::string& target);
  // An address breakpoint as gdb inserts it (Z0): matched by site or line.
  const Breakpoint& add_address(uint64_t address);
  bool remove(int number);
  // Removes the address breakpoints at `address` (those add_address made).
  void remove_address(uint64_t address);
  void clear() { breakpoints_.clear(); }
  const std::vector<Breakpoint>& all() const { return breakpoints_; }

  // The breakpoint the pending operation of a program thread's `slot` is
  // at, if any (a watchpoint: its address overlaps the watched bytes).
  Breakpoint* hit(const shm::ThreadSlot& slot);

 private:
  const Breakpoint& added(Breakpoint b);

  Session& session_;
  std::vector<Breakpoint> breakpoints_;
  int next_number_ = 1;
};

}  // namespace ctrl
