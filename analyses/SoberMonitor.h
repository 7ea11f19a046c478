// Sober's TSO-safety check (Burckhardt & Musuvathi, CAV'08) over one
// sequentially consistent execution.
//
// A program is TSO-safe (its x86-TSO executions are all SC ones) exactly
// when no SC execution is *borderline*: extendable by one load, reading an
// older value, into a trace TSO allows and SC does not. At every plain load
// of an execution the monitor walks back over the writes to that location,
// from the one the load read: a write by the loading thread stops the walk
// (store forwarding); so does one that relaxed happens-before (happens-before
// minus each thread's store->later-load program order: what a store buffer
// may reorder) already orders before the thread's last read; a write that is
// happens-before ordered before the thread's last event, but not so, is the
// witness: under TSO the load could miss it.
//
// Events map onto the paper's operations: plain loads (ld) and stores (st)
// of instruction sites and libatomic loads and non-seq_cst stores;
// interlocked operations (il) for locked instructions, libatomic
// read-modify-writes and seq_cst stores, fences (on a per-thread location),
// and every synchronisation call (on its object: glibc implements them with
// locked instructions). An unlocked read-modify-write is a load then a store.
// Locations are bytes: an access of n bytes is n accesses (mixed sizes are
// then exact for coherence, an approximation of x86 for atomicity), except
// that an access no access of another shape overlaps in the execution is
// one location (the same result, n times cheaper).
#pragma once

#include <cstdint>
#include <atomic>
#include <optional>
#include <vector>

#include "Bug.h"
#include "SharedRegion.h"

namespace ctrl {

struct Borderline {
  uint64_t load;           // index of the load event in the execution
  uint64_t missed_write;   // index of the write the load could miss under TSO
  uint64_t delayed_store;  // index of the loading thread's store a buffer could hold back (UINT64_MAX: unknown)
  uint64_t address;        // the byte loaded first found borderline
};

// The first borderline load of the execution, if any. O(n * threads) plus
// the walks; deterministic. Gives up (nothing) once *cancel is set: a long
// execution's check must not hold up Ctrl-C or the time limit.
std::optional<Borderline> find_borderline(const shm::Event* events, uint64_t n,
                                          const std::atomic<bool>* cancel = nullptr);

// The borderline execution as the bug every layer reads (protocol/Bug.h):
// kind TsoUnsafe, accesses the load, the write it may miss, and the delayed
// store when known; no message (the controller names code and data).
Bug borderline_bug(const Borderline& b);

}  // namespace ctrl
