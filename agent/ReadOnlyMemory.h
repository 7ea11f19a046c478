// The program's read-only file mappings (its and its libraries' text,
// .rodata and RELRO data), as they were at the checkpoint.
//
// Why: under --visible all a load is a visible operation wherever it reads,
// yet a load of memory nobody can write conflicts with no operation: it can
// never take part in a race, so making it a step adds schedules that differ
// in nothing. Worse, such loads at addresses computed from values ctrl does
// not control (a digit table indexed by the kernel's thread id, which
// Rust's panic hook prints) made a replay diverge from its trace.
//
// Invariants:
//  * Recorded once, in the fork server at the checkpoint (after the dynamic
//    linker applied RELRO and the sites were patched), so every execution,
//    replay and live checkpoint of the program sees the same table.
//  * Only private file mappings without write permission: a write there
//    faults (a crash, at the store's own step). The program's mprotect of
//    any of it (InterposeMemory.cpp) empties the table for the rest of the
//    process, so loads there are steps again.
//  * Not seen: such memory unmapped (munmap is not interposed, nor is a raw
//    mprotect system call) and writable memory mapped in its place; loads
//    there would not be steps. Libraries loaded after the checkpoint are not
//    in the table (their loads stay steps).
//  * Read-only *anonymous* memory is left out: a JIT flips its code pages
//    between writable and executable.
#pragma once

#include <cstdint>

namespace ctrl::agent::read_only_memory {

// Reads /proc/self/maps (allocates nothing).
void record();
// [addr, addr+size) lies within one recorded mapping.
bool contains(uint64_t addr, uint64_t size);
// The program changes the protection of [addr, addr+len).
void note_protection_change(uint64_t addr, uint64_t len);

}  // namespace ctrl::agent::read_only_memory
