// What the files of DebugSession share: the session's state and the steps
// its commands are made of. Internal to DebugSession.cpp (the path, and
// taking in where an execution stopped), DebugMoves.cpp (moving along the
// execution) and DebugInspection.cpp (reading the paused execution).
//
// Invariants: as DebugSession.h states, and
//  - path[k] and events[k] are decision k and what it did, for every k <
//    path.size() == events.size(); they may go past `position` after going
//    back (the known future, followed when going forward again).
//  - live: an execution is paused at `position` (its process is there);
//    ended: the execution ended at `position`, `end` says how. A deadlock is
//    both: ended, and kept live so that it can be inspected.
//  - on_recording: path agrees with the recording's decisions so far.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "debug/BreakpointSet.h"
#include "debug/DebugSession.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"
#include "session/StepCheckpoints.h"
#include "trace.pb.h"

namespace ctrl {

struct DebugSession::Impl {
  DebugSession* owner = nullptr;
  Session& session;
  std::optional<proto::Trace> recording;
  proto::Trace trace_template;

  // The known path: decisions and their events, possibly past position
  // (after going back); events[k] is what decision k did.
  std::vector<uint32_t> path;
  std::vector<shm::Event> events;
  uint64_t position = 0;
  bool on_recording = false;  // path agrees with the recording so far
  bool live = false;          // an execution is paused at `position`
  bool ended = false;         // the execution ended at `position`
  ExecutionResult end;        // how (when ended)
  uint64_t execution = 0;     // index of the latest execution started
  BreakpointSet breakpoints;
  StepCheckpoints checkpoints;
  // SIGINT or SIGTERM that came during the latest step (Session defers them
  // while stepping): SIGINT stops a step or continue loop, SIGTERM ends
  // the session.
  int pending_signal = 0;
  // DebugSession::set_interrupt_check's.
  std::function<bool()> interrupt_check;

  Impl(Session& s, std::optional<proto::Trace> rec, proto::Trace tmpl);

  shm::Header& header() { return session.region().header(); }

  // ---- the known path (DebugSession.cpp) ----
  std::optional<uint32_t> recorded(uint64_t step) const;
  // The signature step `step` must have when it is re-run, if known.
  std::optional<shm::Signature> signature(uint64_t step) const;
  // The decision at `step` along the known path (or the recording).
  std::optional<uint32_t> known_decision(uint64_t step) const;
  uint64_t known_length() const;
  std::vector<uint32_t> decisions_to(uint64_t target) const;

  // ---- where an execution stopped (DebugSession.cpp) ----
  // After a command: SIGTERM ends the session; a SIGINT that came while a
  // command ran to its end is forgotten.
  StopInfo settle(StopInfo stop);
  // Takes in what an execution did since `from` and where it stopped.
  StopInfo absorb(ExecutionResult r, uint64_t from);
  // Stepping needs a paused execution that can go on.
  void require_running(const char* what);
  // Inspection needs the process (kept at a deadlock, gone after a crash).
  void require_process(const char* what);

  // ---- moving (DebugMoves.cpp) ----
  // A checkpoint of the paused execution, unless one of this path is at
  // this step already.
  void take_automatic();
  // Moves the paused execution forward to `target` along the known path,
  // leaving automatic checkpoints on the way when the move is long.
  StopInfo advance_to(uint64_t target);
  // The execution at `target` of the known path: from the nearest live
  // checkpoint when there is one, else from the start.
  StopInfo reach(uint64_t target);
  // Abandons the paused execution, if any, and returns the plan of a new
  // one that pauses at `at` (its prefix still to fill).
  ExecutionPlan leave_for(uint64_t at);
  // A restored checkpoint, paused at its own step. Its steps are the
  // path's (the schedule it was taken on): only later ones are checked.
  StopInfo restore_to(const LiveCheckpoints::Checkpoint& c, uint64_t at);
  // A new execution from the checkpoint, paused at `target` along the
  // known path.
  StopInfo run_to(uint64_t target);
  // From the paused `position`, follows the known path to `target`
  // without stopping on the way.
  StopInfo forward_to(uint64_t target);
  // Performs one step by `thread` from the paused position.
  StopInfo perform(uint32_t thread);
  uint32_t default_thread();
  // After a step of a move: a SIGINT that came, or the client's interrupt
  // check (taken, so that it stops one move).
  bool interrupt_requested();
  // A move (goto, back, restart) that a SIGINT paused before its target:
  // says so (StopInfo::ctrl_c), the signal taken.
  StopInfo cut_short(StopInfo stop);
  // The stop of a step that triggered a watchpoint (the last event), if any.
  std::optional<StopInfo> watch_stop();
};

}  // namespace ctrl
