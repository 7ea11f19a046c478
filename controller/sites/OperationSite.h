// Where an operation logged or pending at a site is in the program's code,
// for the stepping session's files (DebugSession*, BreakpointSet, GdbServer).
//
// Invariant: instruction sites (loads, stores, read-modify-writes) and a
// thread's start, exit and the process's exit are exact addresses; an
// interposed call's site is the call's return address, whose line is the one
// of the call itself at site - 1.
#pragma once

#include "Operation.h"

namespace ctrl {

inline bool exact_site(OpKind kind) {
  return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Rmw || kind == OpKind::ThreadStart ||
         kind == OpKind::ThreadExit || kind == OpKind::ProcessExit;
}

}  // namespace ctrl
