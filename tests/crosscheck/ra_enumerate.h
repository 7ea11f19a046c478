// The brute-force oracle of --model ra (issue 23): the RA-consistent weak
// traces of a small straight-line program, counted by enumerating every
// reads-from map and, for each, every total coherence order per location,
// against the axiom itself (TRACER's Definition 3.1, Lahav et al. POPL'16):
// for every location x, po ∪ rf ∪ co_x ∪ fr_x is acyclic, where co_x is a
// strict total order of x's writes with the initial write first; a
// read-modify-write reads the write immediately co-before it. It shares no
// code with ctrl's exploration (analyses/RaSaturation.h, WeakTraceStrategy.h).
//
// Programs: threads of loads, stores of constants and fetch-adds (a
// read-modify-write) on locations 0..vars-1 whose initial value is 0; no
// control flow, so the events do not depend on the values read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ra_oracle {

enum class Kind { Load, Store, FetchAdd };

struct Op {
  Kind kind = Kind::Load;
  int var = 0;
  int value = 1;  // a store's value, a fetch-add's operand
};

struct Program {
  int vars = 1;
  std::vector<std::vector<Op>> threads;
};

// The number of RA-consistent weak traces (po, rf) of p.
uint64_t count_weak_traces(const Program& p);
// Whether one (po, rf) of p is RA-consistent. Events are numbered thread by
// thread in program order; rf[i] is read i's source event, or -1 for the
// initial value (entries of writes are ignored).
bool consistent(const Program& p, const std::vector<int>& rf);

// A program from text: threads separated by '|', operations by ';':
// "r x" (load), "w x 1" (store), "a x 1" (fetch-add), locations x y z w.
Program parse(const std::string& text);
std::string describe(const Program& p);

// A random program from a seed: 2-4 threads, 1-3 locations, 1-`max_ops`
// operations per thread, at most `max_events` in all.
Program random_program(uint64_t seed, int max_ops, int max_events, bool rmw);

}  // namespace ra_oracle
