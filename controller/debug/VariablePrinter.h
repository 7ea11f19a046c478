// Prints a paused program's variables by their DWARF names, the way gdb's
// `print` does, and finds where they live for `watch` and `x`.
//
// Invariants:
//  - The module list is taken once, from /proc/<pid>/maps at construction (a
//    library dlopen'ed later is unknown). DWARF is opened and indexed on the
//    first lookup and kept.
//  - The printer never reads the process itself: every read goes through the
//    MemoryReader of the call, so one printer serves every execution forked
//    from the same program image (same layout, same load biases).
//  - Without a frame, only variables with a static location are printable:
//    globals, statics (file or function scope) and thread-locals, of the
//    executable and of libraries. With a FrameContext, the locals and
//    parameters of that frame come first, as in gdb (FrameLocals.h).
//  - Thread-local variables need the thread's pointer (its fs base). The
//    executable's block ends at the thread pointer (static TLS, x86-64
//    variant II, placed from its PT_TLS segment); a library's block is found
//    through the thread's DTV, with the module id read from glibc's link_map
//    (offset given by libc's _thread_db_link_map_l_tls_modid descriptor).
//  - Errors the user can fix (unknown name, bad expression, unreadable
//    memory) throw UsageError with one line, worded as gdb words them.
//  - Not thread-safe (dwfl is not).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace ctrl {

// Reads `len` bytes of the target at `addr`; false if any is unreadable.
using MemoryReader = std::function<bool(uint64_t addr, void* buf, size_t len)>;

// One frame of a stopped thread, for its locals and parameters.
struct FrameContext {
  uint64_t pc = 0;
  // False when pc is a return address (every frame but the innermost and
  // those a signal interrupted): scopes and locations are looked up at pc - 1.
  bool exact_pc = true;
  user_regs_struct regs{};
  // Bit i: the i-th 8-byte field of regs is valid (Backtracer::registers_at).
  uint64_t known = 0;
};

class VariablePrinter {
 public:
  // Throws InternalError only if libdw cannot start a session at all.
  explicit VariablePrinter(pid_t pid);
  ~VariablePrinter();
  VariablePrinter(const VariablePrinter&) = delete;
  VariablePrinter& operator=(const VariablePrinter&) = delete;

  // "EXPRESSION = VALUE" as gdb prints it (without its "$1"). EXPRESSION:
  // NAME (also "func::name" for a function's static, "ns::name"), &E, *E,
  // E[N], E.FIELD, E->FIELD, (E), chained. A plain name that is no global
  // falls back to a function-scope static of that name. `thread_pointer`
  // is the fs base of the thread whose thread-locals are meant (0: none).
  std::string print(const std::string& expression, const MemoryReader& read, uint64_t thread_pointer);
  // The same in `frame` (nullptr: no frame): a name is first looked for
  // among the locals of the innermost lexical block containing the frame's
  // pc, outwards to the function's locals and parameters, then as above.
  // A value in a register the frame does not know shows as "<optimized out>"
  // ("<not saved>" for a caller-saved register of an outer frame).
  std::string print(const std::string& expression, const MemoryReader& read, uint64_t thread_pointer,
                    const FrameContext* frame);

  // Address and size in bytes of the object EXPRESSION designates (a
  // function: its code), for `watch` and `x`. nullopt when the name is
  // unknown. Names without DWARF are found in the ELF symbol tables. `read`
  // is needed only to follow pointers and for libraries' thread-locals.
  std::optional<std::pair<uint64_t, uint64_t>> address_of(const std::string& expression, uint64_t thread_pointer,
                                                          const MemoryReader& read = {});
  // The same in `frame` (nullptr: no frame); a local in a register has no
  // address (UsageError).
  std::optional<std::pair<uint64_t, uint64_t>> address_of(const std::string& expression, uint64_t thread_pointer,
                                                          const MemoryReader& read, const FrameContext* frame);

  // "counter" or "counter+4" (decimal offset) when a symbol covers addr,
  // else "" (gdb's <...> annotation of addresses).
  std::string symbol_at(uint64_t addr) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctrl
