// gdb's remote serial protocol served on a DebugSession: what each request
// means for a paused ctrl execution. Bytes and framing are GdbConnection's;
// argument parsing and reply encoding are GdbPackets'; monitor commands are
// GdbMonitor's. The members are defined by concern: serving and dispatching
// packets in GdbServer.cpp, threads, registers and memory in
// GdbThreadViews.cpp, moving and stop replies in GdbMotion.cpp.
//
// What gdb sees:
//  - One process whose threads are ctrl's threads, T<i> as gdb thread i + 1,
//    named "T<i> <pending operation> <object>"; `info threads` shows what
//    each does and where. The process id is the session's at connection
//    time: going back or forward re-creates the process (a fork) with the
//    same memory, and gdb is not told.
//  - Registers of a thread are those of its innermost program frame
//    (DebugSession::registers), the rest "unavailable"; memory is read-only.
//    A thread parked in an interposed call is shown at the call instruction
//    (gdb::call_before), which it is about to perform, rather than at the
//    return address: gdb then shows the call's line.
//  - `stepi` moves the selected thread by one visible operation; `step` and
//    `next` are made of such single steps (and of continues when gdb steps
//    over a call: those follow the schedule, so use stepi or `monitor step`
//    for exact control); `continue` is DebugSession::cont. A step of a
//    thread that cannot go yet (blocked) lets the others run until it can
//    when gdb lets them (vCont;s:T;c, scheduler-locking off); when gdb does
//    not, or nothing can move, the stop is a SIGINT with one console line,
//    so that gdb's `next` does not ask again and again.
//  - Breakpoints (Z0/Z1) go to DebugSession::add_address_breakpoint: they
//    stop before a visible operation at that address or on a line whose
//    statement starts there. gdb names the breakpoint ("Breakpoint N, ...")
//    only when the thread's pc is exactly its address (a "swbreak" stop
//    elsewhere would make gdb silently resume): the thread stopped at one
//    is shown at the breakpoint's address until the next move, its other
//    registers being those at its pending operation, later on that line
//    (as if it had not yet run the line's first instructions, which do
//    nothing visible). A thread whose pc is at an inserted breakpoint is
//    stepped over it by gdb before any resume: in ctrl that is one more
//    visible operation of that thread, the one the breakpoint stopped.
//  - Watchpoints (Z2 write, Z3 read, Z4 access, of the bytes gdb asks) go
//    to DebugSession::add_watch; as debug registers do, they stop after the
//    step that wrote (read) the bytes, reported as watch/rwatch/awatch with
//    the thread that did it as the stop's thread (a flush's: the thread
//    whose store it was). gdb's `watch` compares values and goes on by
//    itself after a write of the same value. reverse-continue stops after
//    the latest earlier such step.
//  - `reverse-stepi` goes back to before the stepping thread's previous
//    step (the other threads go back in time with it, as in rr). gdb names
//    that thread only under `set scheduler-locking step` (or on); else it
//    is the thread of the last stop, as in rr.
//    `reverse-continue` to the latest earlier step that performed an
//    operation matching a breakpoint (the match of DebugSession.h's
//    Breakpoint, redone here on events()), else to step 0. When nothing is
//    earlier gdb is told the history begins.
//  - gdb's library list (qXfer:libraries-svr4) is the program's: without
//    ctrl's agent and the libraries only it needs (ProgramLibraries.h), so
//    gdb neither loads their symbols nor names their frames. ctrl's own
//    threads (the agent's helpers) are never among gdb's threads.
//  - Thread-local variables of the executable (TLS module 1) are found
//    through the thread pointer and the dtv; those of shared libraries
//    (errno) are not: glibc keeps their module ids in private fields.
//  - The end of the execution is a stop, not an exit: a bug stops the
//    thread at it with its signal (assertion SIGABRT, crash its signal,
//    deadlock and hang SIGTRAP); a normal end is reported as SIGKILL (as rr
//    does) because gdb closes `target remote` on an exit and going back
//    would be lost. The stop goes to a thread that still has a pc: gdb
//    refuses to move from one without (then only `monitor back`/`goto`).
//  - After a crash or a normal end the process is gone: gdb sees the
//    threads as last listed, with their registers as at the last stop (so
//    that it shows where each was and can go back), the crashed thread at
//    the faulting instruction, and no memory.
//  - When ctrl itself is interrupted (SIGINT, SIGTERM) the session ends:
//    gdb is told the process was killed by that signal (X02) and serve()
//    returns.
//  - Ctrl-C in gdb (the interrupt byte) during a continue or a step stops
//    it between two steps (DebugSession::set_interrupt_check): a SIGINT
//    stop. An interrupt that comes after a stop was sent and before gdb's
//    next request is for a move gdb thought still running (gdb's `next`
//    sends step after step): the next resume stops at once with SIGINT.
//  - `monitor CMD` gives the prompt's commands (GdbMonitor.h; monitor help
//    lists them), their output as console output.
//  - A request the session refuses (UsageError) is answered E01 with one
//    line on stderr; the session goes on.
//  - Each stop is preceded by console output: the steps performed (the bug
//    report's lines, at most kStepLines of them) and the stop's message.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "debug/DebugSession.h"

namespace ctrl {

class GdbConnection;

class GdbServer {
 public:
  static constexpr size_t kStepLines = 64;

  explicit GdbServer(DebugSession& session);

  // `session` has been started (DebugSession::start).
  // Listens on 127.0.0.1:`port` (0: a free port), says where on stderr
  // ("ctrl: gdb server listening on 127.0.0.1:PORT (gdb PROGRAM -ex
  // 'target remote :PORT')"), serves one connection to its end (gdb
  // detaches, kills or hangs up) and returns 0. The session stays where gdb
  // left it. A SIGINT or SIGTERM pending (ctrl blocks them for its signalfd)
  // also ends it, and stays pending for the session to see. `log`, when not
  // null, gets every packet. Throws UsageError when the port is taken.
  int serve(uint16_t port, std::FILE* log);

  // Serves an accepted connection until its end.
  void serve_connection(GdbConnection& connection);

 private:
  // The largest packet gdb is told it may send (qSupported), and the
  // largest memory reply.
  static constexpr uint64_t kPacketSize = 0x4000;
  // Handles one request; false when gdb ended the session.
  bool handle(const std::string& packet);
  void reply(const std::string& payload);
  void output(const std::string& text);  // console output ('O')

  std::string query(const std::string& packet);
  std::string xfer(const std::string& packet);
  std::string read_registers(const std::string& packet);
  std::string read_memory(const std::string& packet);
  std::string tls_address(const std::string& packet);
  std::string breakpoint(const std::string& packet);
  void monitor(const std::string& text);

  // Resuming: each sends its stop reply. `others_may_run`: gdb lets the
  // other threads run while `thread` steps.
  void resume(char action, std::optional<uint32_t> thread, bool others_may_run = true);
  void reverse(bool step);
  // `history_begins`: a reverse execution found nothing earlier to stop at.
  void stop_reply(const StopInfo& stop, std::optional<uint32_t> thread, bool history_begins = false);
  // Runs `move` with the step lines going to gdb; returns its stop.
  StopInfo moving(const std::function<StopInfo(const std::function<void(const std::string&)>&)>& move);

  // The thread the next step belongs to, for stops that name none.
  uint32_t next_thread();
  uint32_t thread_of_step(uint64_t step);
  uint32_t general_thread();
  // The session's threads, or without a process the last ones listed.
  std::vector<ThreadView> thread_list();
  bool known_thread(uint32_t index);
  // Registers, none when there is no process.
  std::optional<ThreadRegisters> registers_of(uint32_t thread);
  // `thread` if gdb can have its pc, else the first thread that has one.
  uint32_t with_pc(uint32_t thread);
  int bug_signal() const;

  DebugSession& session_;
  GdbConnection* connection_ = nullptr;
  std::FILE* log_ = nullptr;
  pid_t pid_ = 0;                            // as gdb knows it
  std::optional<uint32_t> general_thread_;   // Hg: registers
  std::optional<uint32_t> continue_thread_;  // Hc: legacy s, bs
  bool over_ = false;                        // the session ended under gdb (ctrl was interrupted)
  std::string last_stop_;                    // for '?'
  uint32_t last_stop_thread_ = 0;
  std::map<uint64_t, int> watches_;                     // Z2-Z4 address -> breakpoint number
  std::map<uint32_t, ThreadRegisters> last_registers_;  // as gdb last saw them
  std::vector<ThreadView> last_threads_;                // the last non-empty list
  std::set<uint64_t> inserted_;                         // Z0 addresses the session placed
  std::set<uint64_t> unplaced_;                         // Z0 addresses the session could not place
  // The thread stopped at a breakpoint and the breakpoint's address, shown
  // as its pc until the next move.
  std::optional<std::pair<uint32_t, uint64_t>> at_breakpoint_;
  bool interrupted_ = false;
  std::string libraries_;  // the last qXfer:libraries-svr4 document  // gdb's interrupt byte came during (or just
                           // before) a move
};

}  // namespace ctrl
