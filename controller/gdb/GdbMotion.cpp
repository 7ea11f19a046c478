// Moving through the execution for gdb: breakpoints and watchpoints,
// continue and step, their reverse forms (as rr does them: the other
// threads go back in time too), and the stop replies that tell gdb where
// the execution is. Part of GdbServer (GdbServer.h).
#include <cstdio>

#include "cli/ExitStatus.h"
#include "gdb/GdbConnection.h"
#include "gdb/GdbPackets.h"
#include "gdb/GdbServer.h"
#include "Operation.h"
#include "sites/OperationSite.h"
#include "binary/Symbolizer.h"

namespace ctrl {

namespace {

constexpr int kSigInt = 2, kSigTrap = 5, kSigAbrt = 6, kSigKill = 9, kSigSegv = 11;

std::string hex_byte(int value) {
  char buffer[4];
  std::snprintf(buffer, sizeof buffer, "%02x", value & 0xff);
  return buffer;
}

// Whether step event `e` performed an operation that breakpoint `b` stops
// before: the match DebugSession applies to a pending operation
// (BreakpointSet::hit), applied to a past step. Keep the two alike.
bool event_hits(const Breakpoint& b, const shm::Event& e, Symbolizer& symbolizer) {
  if (b.kind == Breakpoint::Kind::Watch || !e.site) return false;
  if (e.site == b.address) return true;
  // The site of an interposed call is its return address: the call is the
  // instruction before. Memory accesses and thread starts and ends are at
  // their own address.
  uint64_t at = exact_site(OpKind(e.kind)) ? e.site : e.site - 1;
  if (b.function_end && (at < b.function_start || at >= b.function_end)) return false;
  if (b.line > 0) return symbolizer.source_line(at) == b.file + ":" + std::to_string(b.line);
  return b.function_end != 0;
}

}  // namespace

std::string GdbServer::breakpoint(const std::string& packet) {
  auto request = gdb::parse_breakpoint(packet);
  if (!request) return "E01";
  if (request->type <= 1) {
    if (request->insert) {
      try {
        session_.add_address_breakpoint(request->address);
        unplaced_.erase(request->address);
        inserted_.insert(request->address);
      } catch (const UsageError& e) {
        // No visible operation can happen there: the breakpoint can never
        // stop, which is what gdb would see. Refusing it would make gdb
        // refuse to resume (its own breakpoints in ld.so are of this kind).
        unplaced_.insert(request->address);
        if (log_)
          std::fprintf(log_, "gdb: breakpoint at 0x%llx never stops: %s\n",
                       static_cast<unsigned long long>(request->address), e.what());
      }
    } else if (!unplaced_.erase(request->address)) {
      session_.remove_address_breakpoint(request->address);
      inserted_.erase(request->address);
    }
    return "OK";
  }
  if (request->insert) {
    auto access = request->type == 2   ? Breakpoint::Access::Write
                  : request->type == 3 ? Breakpoint::Access::Read
                                       : Breakpoint::Access::Any;
    const Breakpoint& b = session_.add_watch(request->address, request->kind ? request->kind : 1, access,
                                             "0x" + gdb::hex_number(request->address));
    watches_[request->address] = b.number;
    return "OK";
  }
  auto it = watches_.find(request->address);
  if (it == watches_.end()) return "E01";
  session_.remove_breakpoint(it->second);
  watches_.erase(it);
  return "OK";
}

StopInfo GdbServer::moving(const std::function<StopInfo(const std::function<void(const std::string&)>&)>& move) {
  size_t lines = 0;
  auto on_step = [&](const std::string& line) {
    if (++lines <= kStepLines) output(line + "\n");
  };
  // The thread shown at a breakpoint goes back to its own pc once anything moves.
  at_breakpoint_.reset();
  StopInfo stop = move(on_step);
  if (lines > kStepLines) output("... " + std::to_string(lines - kStepLines) + " more steps\n");
  return stop;
}

void GdbServer::resume(char action, std::optional<uint32_t> thread, bool others_may_run) {
  StopInfo stop;
  if (interrupted_) {
    // gdb was interrupted between two of its requests: no move.
    stop.thread = thread ? *thread : last_stop_thread_;
    stop_reply(stop, std::nullopt);
    return;
  }
  try {
    if (action == 's') {
      stop = moving([&](const auto& on_step) { return session_.step(thread, 1, on_step, others_may_run); });
      if (stop.thread == UINT32_MAX && session_.position() > 0) stop.thread = thread_of_step(session_.position() - 1);
    } else {
      stop = moving([&](const auto& on_step) { return session_.cont(on_step); });
    }
  } catch (const UsageError& e) {
    // The thread cannot move (blocked with the others held by gdb,
    // finished, past the end): gdb still needs a stop, at the same place,
    // and one that ends its `next` or `step` (which would ask again at once
    // for a thread whose pc did not move): a SIGINT, with the reason once.
    output(std::string("ctrl: ") + e.what() + "\n");
    stop = StopInfo{};
    stop.thread = thread ? *thread : last_stop_thread_;
    interrupted_ = true;
  }
  stop_reply(stop, std::nullopt);
}

void GdbServer::reverse(bool step) {
  uint64_t position = session_.position();
  std::optional<uint64_t> target;
  int hit = -1;
  // The thread gdb steps: Hc names it under `set scheduler-locking step`
  // (or on); otherwise gdb says "any thread" and, as rr does, it is the
  // thread of the last stop. It goes back to before its previous step.
  uint32_t stepping = continue_thread_ ? *continue_thread_ : last_stop_thread_;
  std::optional<uint32_t> watcher;  // the thread whose access a watchpoint stopped after
  if (step) {
    for (uint64_t k = position; k-- > 0;)
      if (thread_of_step(k) == stepping) {
        target = k;
        break;
      }
  } else {
    const auto& events = session_.events();
    Symbolizer& symbolizer = session_.symbolizer();
    for (uint64_t k = std::min<uint64_t>(position, events.size()); k-- > 0 && !target;) {
      for (const auto& b : session_.breakpoints()) {
        // A breakpoint stops before its step; a watchpoint after it (and
        // not again where the execution stands after it).
        if (event_hits(b, events[k], symbolizer)) {
          target = k;
        } else if (k + 1 < position && BreakpointSet::triggers(b, events[k])) {
          target = k + 1;
          const shm::Event& e = events[k];
          watcher = OpKind(e.kind) == OpKind::Flush ? e.owner : e.thread;
        } else {
          continue;
        }
        hit = b.number;
        break;
      }
    }
    // No earlier hit: back to the start, where the history begins.
    if (!target && position > 0) target = 0;
  }
  StopInfo stop;
  at_breakpoint_.reset();
  if (target) {
    try {
      stop = session_.go_to(*target);
    } catch (const UsageError& e) {
      output(std::string("ctrl: ") + e.what() + "\n");
    }
  }
  if (stop.reason == StopReason::Step && hit >= 0) {
    stop.breakpoint = hit;
    for (const auto& b : session_.breakpoints())
      if (b.number == hit)
        stop.reason = b.kind == Breakpoint::Kind::Watch ? StopReason::Watchpoint : StopReason::Breakpoint;
  }
  if (!stop.message.empty()) output(stop.message + "\n");
  stop.message.clear();
  // A reverse step reports its thread (it stays where it is when it has no
  // earlier step); a reverse continue the thread at the breakpoint, or the
  // first one at step 0.
  stop.thread = step ? stepping : watcher ? *watcher : next_thread();
  bool history_begins = step ? !target : hit < 0;
  stop_reply(stop, std::nullopt, history_begins);
}

int GdbServer::bug_signal() const {
  const ExecutionResult* bug = session_.bug();
  if (!bug) return kSigTrap;
  // Deadlock, hang, a model's verdict: no signal.
  if (!bug_has_signal(bug->kind)) return kSigTrap;
  if (bug->facts.signal) return bug->facts.signal;
  return bug->kind == BugKind::Assertion ? kSigAbrt : kSigSegv;
}

void GdbServer::stop_reply(const StopInfo& stop, std::optional<uint32_t> thread_override, bool history_begins) {
  uint32_t thread = thread_override ? *thread_override
                    : stop.thread != UINT32_MAX
                        ? (stop.thread >= shm::kFlushActorBase ? stop.thread - shm::kFlushActorBase : stop.thread)
                        : next_thread();
  // gdb refuses to go on (even backwards) from a thread without a pc, as a
  // finished one: the stop goes to a thread that has one, if any.
  if (stop.reason == StopReason::Exited || stop.reason == StopReason::Bug) thread = with_pc(thread);
  int signal = kSigTrap;
  std::string reason;
  switch (stop.reason) {
    case StopReason::Step:
    case StopReason::EndOfRecording:
      break;
    case StopReason::Breakpoint:
      // gdb names a breakpoint only at its address (and takes a software
      // breakpoint stop elsewhere for a stale one, silently resuming): the
      // thread is shown there (at_breakpoint_), the line it stopped on.
      for (const auto& b : session_.breakpoints())
        if (b.number == stop.breakpoint && b.kind == Breakpoint::Kind::Code && inserted_.count(b.address)) {
          at_breakpoint_ = std::make_pair(thread, b.address);
          reason = "swbreak:;";
        }
      break;
    case StopReason::Watchpoint:
      for (const auto& b : session_.breakpoints())
        if (b.number == stop.breakpoint) {
          const char* kind = b.access == Breakpoint::Access::Write  ? "watch"
                             : b.access == Breakpoint::Access::Read ? "rwatch"
                                                                    : "awatch";
          reason = std::string(kind) + ":" + gdb::hex_number(b.address) + ";";
        }
      break;
    case StopReason::Bug:
      signal = bug_signal();
      break;
    case StopReason::Exited:
      signal = kSigKill;
      break;
    case StopReason::Interrupted:
      signal = kSigInt;
      break;
  }
  if (stop.reason == StopReason::Interrupted) {
    // ctrl itself was interrupted (SIGINT, SIGTERM): the session is over,
    // and so is gdb's inferior.
    if (!stop.message.empty()) output(stop.message + "\n");
    last_stop_ = "X" + hex_byte(signal);
    reply(last_stop_);
    over_ = true;
    return;
  }
  if (history_begins) reason += "replaylog:begin;";
  // gdb numbers its breakpoints itself: the session's number would only
  // confuse ("Breakpoint 5, T0 is about to ..." before gdb's "Breakpoint 3").
  std::string message = stop.message;
  if (stop.reason == StopReason::Breakpoint || stop.reason == StopReason::Watchpoint) {
    size_t cut = message.find_first_of(",:");
    if (cut != std::string::npos && cut + 2 <= message.size()) message = "ctrl: " + message.substr(cut + 2);
  }
  // gdb's interrupt stopped the move, or the move could not be made.
  if (interrupted_ && (stop.reason == StopReason::Step || stop.reason == StopReason::EndOfRecording)) signal = kSigInt;
  interrupted_ = false;
  if (!message.empty()) output(message + "\n");
  if (stop.reason == StopReason::Exited)
    output(
        "ctrl: the program has ended; monitor back and monitor goto still work (and reverse-stepi and "
        "reverse-continue while a thread remains)\n");
  last_stop_thread_ = thread;
  // gdb takes the thread of a stop reply as the one 'g' and 'm' now apply
  // to, without sending Hg.
  general_thread_ = thread;
  // Remembered for when the process is gone.
  for (const auto& t : thread_list()) registers_of(t.index);
  last_stop_ = "T" + hex_byte(signal) + "thread:" + gdb::thread_id(pid_, thread) + ";" + reason;
  reply(last_stop_);
}

}  // namespace ctrl
