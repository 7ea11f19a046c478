// The shared set of own memory (agent/OwnMemory.h): the granule runs of
// threads' stacks and static TLS that some execution found another thread
// touching. Accesses there are steps again, for every thread, for the rest
// of the run; an exploration that found a new one is explored again from
// the start with the set enlarged (Cli.cpp, docs/ARCHITECTURE.md "Own
// memory"). Kept in every trace, so a replay makes the same accesses steps.
//
// Invariant: a set is sorted by address, its ranges disjoint and not
// adjacent (adjacent runs are merged), each a run of whole granules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "SharedRegion.h"
#include "trace.pb.h"

namespace ctrl {

using SharedRange = shm::Header::Range;

// Adds `more` (granule runs, any order) to `set`; returns the bytes the set
// covers that it did not before.
uint64_t add_shared(std::vector<SharedRange>& set, const std::vector<SharedRange>& more);
// The bytes `set` covers.
uint64_t shared_bytes(const std::vector<SharedRange>& set);
// Writes the plan's own-memory fields: on when asked and the set fits the
// region (else off: every access is a step, as under --visible all).
void write_shared(shm::Header& h, bool own_memory, const std::vector<SharedRange>& set);
// The set as a trace keeps it (Options.shared: address, size, ...), and back.
void set_trace_shared(proto::Options& o, const std::vector<SharedRange>& set);
std::vector<SharedRange> trace_shared(const proto::Options& o);

}  // namespace ctrl
