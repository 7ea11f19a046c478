// `monitor CMD` in gdb: the prompt's commands (threads, step, back, goto,
// schedule, save, checkpoint, checkpoints, restart, help) run on the
// DebugSession, their output going to gdb's console. The text is parsed by
// gdb::parse_monitor; GdbServer sends the output as 'O' packets.
//
// A command the session refuses gets one "ctrl: ..." line of output and
// changes nothing; gdb is never sent an error for it (a gdb script goes on).
// Commands that move do so behind gdb's back, and say so: gdb's register and
// frame caches are stale until `maintenance flush register-cache`.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include "debug/DebugSession.h"

namespace ctrl {

// A move of the session, given the callback for each step's line.
using MonitorMove = std::function<StopInfo(const std::function<void(const std::string&)>&)>;

// Runs `text` (a qRcmd's decoded text) on `session`. `output` gets console
// text; `moving` runs a move so that its step lines reach gdb. `gdb_pid` is
// the process id gdb was given, to name threads as gdb does.
void run_monitor_command(DebugSession& session, pid_t gdb_pid, const std::string& text,
                         const std::function<void(const std::string&)>& output,
                         const std::function<StopInfo(const MonitorMove&)>& moving);

}  // namespace ctrl
