// The brute-force oracle of --model ra for programs with branches and
// mutexes (issue 23), beside ra_enumerate.h's straight-line one: every
// RA-consistent weak trace (po, rf) of a small program whose threads branch
// on the values they read, counted by generating every reads-from choice of
// every read in every order that extends po ∪ rf, keeping the graphs that
// satisfy the axiom (for every location x, po ∪ rf ∪ co_x ∪ fr_x acyclic for
// some strict total co_x with the initial write first, a read-modify-write
// right after the write it reads), each found by trying every such co_x.
// It shares no code with ctrl's exploration nor with ra_enumerate.cpp.
//
// A mutex is a location (initially 0, unlocked) that lock and unlock access
// as a program using an atomic flag would: lock is a read-modify-write that
// reads an unlocked write (the initial one or an unlock) and writes 1,
// unlock a write of 0; a lock that cannot read an unlocked write waits.
// Read-modify-write atomicity makes the acquisitions a chain in co, each
// reading the unlock of the critical section before it; a weak trace
// therefore fixes the order of the critical sections, as ctrl's does.
//
// Invariant: the count does not depend on the order threads are tried in;
// a graph is identified by its threads' event counts and each read's source
// (the threads are deterministic, so these fix everything else).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ra_oracle {

// One instruction of a thread. Registers are per thread, 0 initially.
struct Instr {
  enum Op {
    Load,      // reg := var
    Store,     // var := value
    StoreReg,  // var := reg + value
    Lock,      // acquire mutex var
    Unlock,    // release mutex var
    JumpLe,    // if reg <= value goto target
    JumpEq,    // if reg == value goto target
    End,       // the thread returns
  } op = End;
  int var = 0, reg = 0, value = 0, target = 0;
};

struct FlowProgram {
  int vars = 1;  // locations 0..vars-1, mutexes included
  std::vector<std::vector<Instr>> threads;
};

struct FlowCount {
  uint64_t traces = 0;  // RA-consistent weak traces of complete executions
  uint64_t graphs = 0;  // consistent partial graphs visited
};

FlowCount count_flow_weak_traces(const FlowProgram& p);

// TRACER's Exponential_bug(n) (samples/ra/exponential_bug.c): locations
// x = 0, y = 1, the mutex 2.
FlowProgram exponential_bug(int n);

}  // namespace ra_oracle
