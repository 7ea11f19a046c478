// The contents of ctrl's gdb remote packets, without a session: parsing of
// request arguments (hex numbers, thread ids, qXfer, Z, vCont, monitor
// commands) and building of replies (the register layout of 'g' and its
// target description, qXfer slices, the thread list). GdbServer gives them
// their meaning on a DebugSession; GdbConnection frames them.
//
// Thread ids: ctrl's thread T<i> is gdb's thread i + 1 of process `pid`
// ("p<pid hex>.<i + 1 hex>"), since gdb reserves 0 (any thread) and -1
// (all threads).
//
// Register layout: the one target_xml() describes, in its order: the
// org.gnu.gdb.i386.core registers (rax..r15, rip, eflags, segment
// selectors, st0-7 and the x87 control registers), org.gnu.gdb.i386.sse
// (xmm0-15, mxcsr), org.gnu.gdb.i386.linux (orig_rax) and
// org.gnu.gdb.i386.segments (fs_base, gs_base); little-endian. Registers
// ctrl does not know (all of the floating point and vector state, and the
// general ones the unwinder could not recover) are sent as "xx" bytes, which
// gdb shows as <unavailable>.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debug/DebugSession.h"
#include "gdb/ProgramLibraries.h"

namespace ctrl::gdb {

// ---- hex ----
std::string to_hex(std::string_view bytes);
// Even-length hex text to bytes; nullopt on anything else.
std::optional<std::string> from_hex(std::string_view hex);
// The whole of `text` as one hex number (1 to 16 digits).
std::optional<uint64_t> parse_hex(std::string_view text);
std::string hex_number(uint64_t value);  // lowercase, no leading zeros
std::vector<std::string_view> split(std::string_view text, char separator);

// ---- thread ids ----
struct ThreadId {
  enum class Kind { Any, All, One } kind = Kind::Any;  // 0, -1, a thread
  uint32_t index = 0;                                  // One: ctrl's T<index>
};
// "p<pid>.<tid>", "p<pid>", "<tid>", "0", "-1" (pid is not checked: there
// is one process).
std::optional<ThreadId> parse_thread_id(std::string_view text);
std::string thread_id(pid_t pid, uint32_t index);

// ---- registers ----
const std::string& target_xml();
size_t register_count();
// The 'g' reply; nullopt registers: every byte "xx".
std::string encode_registers(const std::optional<ThreadRegisters>& registers);
// The 'p' reply for register `number` of the layout; nullopt past its end.
std::optional<std::string> encode_register(const std::optional<ThreadRegisters>& registers, size_t number);

// The call instruction that ends at `return_address`, given the bytes just
// before it (`before` ends at return_address): its address, or nullopt when
// no call of that length decodes there. A thread parked in an interposed
// call is about to perform it: gdb is shown it there, at the call's line,
// rather than at the return address, which may start the next line (or lie
// past the end of the function after a call that does not return).
std::optional<uint64_t> call_before(std::string_view before, uint64_t return_address);

// ---- qXfer ----
struct XferRead {
  std::string object;  // "features", "auxv", "threads", "exec-file", "libraries-svr4"
  std::string annex;   // "target.xml", a pid, or ""
  uint64_t offset = 0, length = 0;
};
// "qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH".
std::optional<XferRead> parse_xfer_read(std::string_view payload);
// The reply to a read of [offset, offset + length) of `document`: 'm' and
// the bytes when more follow, 'l' and the bytes when they reach its end.
std::string xfer_slice(std::string_view document, uint64_t offset, uint64_t length);

// ---- memory and breakpoints ----
struct MemoryRange {
  uint64_t address = 0, length = 0;
};
// "ADDR,LENGTH" (the arguments of 'm').
std::optional<MemoryRange> parse_memory_range(std::string_view text);

struct BreakpointRequest {
  bool insert = true;  // Z or z
  int type = 0;        // 0 software, 1 hardware, 2 write, 3 read, 4 access watchpoint
  uint64_t address = 0;
  uint64_t kind = 0;  // breakpoint: its length; watchpoint: bytes watched
};
// "Z0,ADDR,KIND" and "z..." (conditions after ';' are ignored).
std::optional<BreakpointRequest> parse_breakpoint(std::string_view payload);

// ---- resuming ----
struct ResumeAction {
  char action = 'c';  // 'c', 's' or 't' (C and S lose their signal)
  ThreadId thread;    // Kind::All when the action names none
};
// "vCont;ACTION[:THREAD];...".
std::optional<std::vector<ResumeAction>> parse_vcont(std::string_view payload);

// ---- monitor commands (qRcmd) ----
struct MonitorCommand {
  enum class Name { Help, Threads, Step, Back, Goto, Schedule, Save, Checkpoint, Checkpoints, Restart } name;
  std::optional<uint32_t> thread;  // Step: T (absent: the session's default)
  uint64_t count = 1;              // Step and Back: N; Goto: the step; Restart: the id
  std::string file;                // Save
};
// Parses the decoded text of a qRcmd. Throws UsageError with one line.
MonitorCommand parse_monitor(std::string_view text);
// One line per command, for `monitor help`.
std::string monitor_help();

// ---- replies ----
struct ThreadEntry {
  uint32_t index = 0;
  std::string name;   // "T0 mutex_lock m"
  std::string extra;  // what it does and where, shown by `info threads`
};
// The qXfer:threads:read document.
std::string threads_xml(pid_t pid, const std::vector<ThreadEntry>& threads);
// The qXfer:libraries-svr4:read document.
std::string libraries_svr4_xml(const LibraryList& list);
// An 'O' packet: console output for gdb.
std::string console_output(std::string_view text);

}  // namespace ctrl::gdb
