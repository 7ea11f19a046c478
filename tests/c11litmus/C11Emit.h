// The C or C++ program of a C11 litmus test, generated from its
// description so that the enumerator and the program cannot drift apart.
//
// Every atomic operation becomes one libatomic call when the program is
// built with -fno-inline-atomics: C uses the __atomic builtins with explicit
// __ATOMIC_* orders and calls libatomic's atomic_thread_fence function for
// fences (the builtin fence is inline: nothing for acquire and release, a
// locked or for seq_cst, invisible to ctrl as a fence); C++ uses
// std::atomic<long> members with explicit std::memory_order arguments (no
// fences and no uninitialised locations there: std::atomic_thread_fence is
// always inline). Non-atomic accesses are volatile plain loads and stores.
//
// The program takes the model as its first argument (sc, rc11, c11) and
// asserts, after joining its threads, that its outcome is one the header's
// ALLOWED line for that model lists; with a second argument "hunt" it also
// asserts, one assertion per line, that the outcome is not each allowed one
// in turn, so that an exploration that reaches every allowed outcome finds
// exactly as many distinct assertion failures as there are outcomes.
#ifndef CTRL_C11LITMUS_C11EMIT_H
#define CTRL_C11LITMUS_C11EMIT_H

#include <string>

#include "C11Litmus.h"

namespace c11litmus {

// language: "c" or "cpp". Throws ParseError when the test has no ALLOWED
// line for some model, or uses what the language's program cannot express.
std::string emit_program(const Test& test, const std::string& language);

}  // namespace c11litmus

#endif
