// A helper session of -j N: a second launched target of the explorer's
// program, on a CPU of its own, that must repeat the explorer's first
// execution event for event before any of its executions may stand for one
// of the explorer's (PartitionedDpor.h, PartitionedSampling.h).
//
// Invariants: started and used on one thread from launch to end (the
// parent-death signal of its target is tied to the thread that forked it;
// Tracer::set_helper_thread must have been called on it); the sessions share
// the file system, so an execution that touches the outside (a file
// changed, a wait on a descriptor or a child) ends every helper's use.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "Strategy.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"

namespace ctrl {

// Executions that could make sessions see each other: a file changed, a
// wait on a descriptor or on a child.
bool touches_outside(const ExecutionResult& r, bool files_changed);

// What another session may hand to the explorer: complete, blocked and cut
// executions. A bug (and anything else) the explorer runs again on its own
// session, which then holds the execution for the report, the trace and the
// shrinker.
bool handed_over(ExecutionResult::End end);

struct HelperStart {
  std::unique_ptr<Session> session;  // null: not usable
  bool interrupted = false;          // stopped from outside (not a failure)
  std::string failed;                // why it is not usable, when it is not
};

// Starts helper number `k` (0-based) of `config` (the explorer's session's,
// runner_cpu its CPU) and runs `first`, which must give `first_result`'s
// end and events.
HelperStart start_helper_session(const SessionConfig& config, size_t k, std::chrono::steady_clock::time_point deadline,
                                 const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                                 const ExecutionResult& first_result);

// Starts `n` threads running body(k), k = 0..n-1, appended to `threads`. They
// start with the stop signal blocked (a thread inherits its creator's mask):
// one sent before a helper's Tracer takes it over must wait for it, not kill
// ctrl.
void start_helper_threads(std::vector<std::thread>& threads, size_t n, const std::function<void(size_t)>& body);

// Ends the threads start_helper_threads made and empties `threads`: a helper
// may be in the middle of an execution (or of its start-up), which the stop
// signal ends as Ctrl-C ends the explorer's. The caller has told them to stop.
void join_helper_threads(std::vector<std::thread>& threads);

}  // namespace ctrl
