// Rust panics (issue 22, item 10). A Rust program's panic ends it with exit
// status 101 (panic=unwind, the default: the panicking thread unwinds, and
// a panic in a spawned thread reaches main through join().unwrap()), or by
// abort() (panic=abort); its message is written to stderr by the default
// panic hook, in one write(2, ...) of "\nthread 'NAME' (TID) panicked at
// FILE:LINE:COL:\nMESSAGE\n" (older toolchains: no leading newline and no
// TID; a message over 512 bytes comes in several writes). The panic entry
// points (rust_panic, __rust_start_panic) are the executable's own, bound
// inside it and often stripped: they cannot be interposed, but `write` can.
//
// The agent keeps the first such text of the execution in the shared
// header (panic_text); the controller makes the execution a `panic` bug
// when it then exits with status 101 or aborts (Session::judge_exit), so a
// panic the program catches (catch_unwind) and survives is no bug.
//
// Invariants: no heap, no stdio, no lock (called from write interposers,
// in any thread, also before the checkpoint); only the first panic of an
// execution is kept (the one that caused the others).
#pragma once

#include <cstddef>

namespace ctrl::agent::panic_watch {

// The program writes `n` bytes of `buf` to descriptor 2.
void on_stderr(const void* buf, size_t n);

}  // namespace ctrl::agent::panic_watch
