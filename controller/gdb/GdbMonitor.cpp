#include "gdb/GdbMonitor.h"

#include <climits>

#include "cli/ExitStatus.h"
#include "gdb/GdbPackets.h"

namespace ctrl {

namespace {

const char* state_name(ThreadView::State s) {
  switch (s) {
    case ThreadView::State::Running:
      return "running";
    case ThreadView::State::Enabled:
      return "enabled";
    case ThreadView::State::Blocked:
      return "blocked";
    case ThreadView::State::Finished:
      return "finished";
  }
  return "?";
}

}  // namespace

void run_monitor_command(DebugSession& session, pid_t gdb_pid, const std::string& text,
                         const std::function<void(const std::string&)>& output,
                         const std::function<StopInfo(const MonitorMove&)>& moving) {
  gdb::MonitorCommand command;
  try {
    command = gdb::parse_monitor(text);
  } catch (const UsageError& e) {
    output(std::string("ctrl: ") + e.what() + "\n");
    return;
  }
  using Name = gdb::MonitorCommand::Name;
  const char* moved = "(gdb still shows the old state: maintenance flush register-cache)\n";
  try {
    switch (command.name) {
      case Name::Help:
        output(gdb::monitor_help());
        break;
      case Name::Threads: {
        std::string out;
        for (const auto& t : session.threads()) {
          out += "T" + std::to_string(t.index) + " (Thread " + std::to_string(gdb_pid) + "." +
                 std::to_string(t.index + 1) + " in gdb) " + state_name(t.state) + ": " + t.description;
          if (!t.where.empty() && t.description.find(t.where) == std::string::npos) out += " at " + t.where;
          out += "\n";
        }
        for (const auto& line : session.buffers()) out += line + "\n";
        output(out);
        break;
      }
      case Name::Step: {
        StopInfo stop =
            moving([&](const auto& on_step) { return session.step(command.thread, command.count, on_step); });
        if (!stop.message.empty()) output(stop.message + "\n");
        output("at step " + std::to_string(session.position()) + " " + moved);
        break;
      }
      case Name::Back:
      case Name::Goto: {
        StopInfo stop = command.name == Name::Back ? session.back(command.count) : session.go_to(command.count);
        if (!stop.message.empty()) output(stop.message + "\n");
        output("at step " + std::to_string(session.position()) + " " + moved);
        break;
      }
      case Name::Schedule: {
        std::string out;
        for (uint64_t k = 0; k < session.position(); ++k) out += session.describe_step(k) + "\n";
        if (out.empty()) out = "no step yet\n";
        if (!session.following_recording()) out += "(the schedule has left the recording)\n";
        output(out);
        break;
      }
      case Name::Save:
        session.save(command.file);
        output("saved the schedule (" + std::to_string(session.position()) + " steps) to " + command.file + "\n");
        break;
      case Name::Checkpoint: {
        int id = session.checkpoint();
        output("checkpoint " + std::to_string(id) + " at step " + std::to_string(session.position()) + "\n");
        break;
      }
      case Name::Checkpoints: {
        std::string out;
        for (const auto& c : session.checkpoints())
          out += std::to_string(c.id) + ": step " + std::to_string(c.step) + (c.automatic ? " (automatic)" : "") + "\n";
        output(out.empty() ? "no checkpoints\n" : out);
        break;
      }
      case Name::Restart: {
        if (command.count > INT_MAX) throw UsageError("no checkpoint " + std::to_string(command.count));
        StopInfo stop = session.restart(static_cast<int>(command.count));
        if (!stop.message.empty()) output(stop.message + "\n");
        output("at step " + std::to_string(session.position()) + " " + moved);
        break;
      }
    }
  } catch (const UsageError& e) {
    output(std::string("ctrl: ") + e.what() + "\n");
  }
}

}  // namespace ctrl
