// The stepping session's breakpoints and watchpoints: what the user (or gdb,
// through Z packets) set, which breakpoint a thread's pending operation is
// at, and which watchpoint a performed step triggered. `continue` asks
// before each step for breakpoints and after it for watchpoints, as a
// processor's debug registers do (DebugSession.h); `step` ignores them.
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
  // Watch: [address, address + size), triggered after a step that writes
  // (Write: gdb's watch, Z2), reads (Read: rwatch, Z3) or touches (Any:
  // awatch, Z4) any of those bytes.
  uint64_t size = 0;
  enum class Access { Write, Read, Any } access = Access::Write;
  uint64_t hits = 0;
};

class BreakpointSet {
 public:
  // Names and lines are looked up in `session`'s program.
  explicit BreakpointSet(Session& session) : session_(session) {}

  // LOCATION: an address (0xADDRESS or *ADDRESS, as add_address), FILE:LINE
  // or a function. Throws UsageError with
  // one line when it names nothing.
  const Breakpoint& add(const std::string& location);
  // TARGET: a variable (optionally &name) or an address (one byte).
  const Breakpoint& add_watch(const std::string& target);
  // [address, address + size), `spec` as the user wrote it.
  const Breakpoint& add_watch(uint64_t address, uint64_t size, Breakpoint::Access access, std::string spec);
  // An address breakpoint as gdb inserts it (Z0): matched by site or line.
  const Breakpoint& add_address(uint64_t address);
  bool remove(int number);
  // Removes the address breakpoints at `address` (those add_address made).
  void remove_address(uint64_t address);
  void clear() { breakpoints_.clear(); }
  const std::vector<Breakpoint>& all() const { return breakpoints_; }

  // The code breakpoint the pending operation of a program thread's `slot`
  // is at, if any.
  Breakpoint* hit(const shm::ThreadSlot& slot);
  // The watchpoint the performed step `e` triggered, if any: it wrote
  // (a store that reached memory: not one held in a tso/pso store buffer,
  // whose flush writes it; not a failed compare-exchange), or read, bytes
  // the watchpoint covers.
  Breakpoint* watch_hit(const shm::Event& e);
  // Whether step `e` triggered watchpoint `b` (as watch_hit decides).
  static bool triggers(const Breakpoint& b, const shm::Event& e);

 private:
  const Breakpoint& added(Breakpoint b);

  Session& session_;
  std::vector<Breakpoint> breakpoints_;
  int next_number_ = 1;
};

}  // namespace ctrl
