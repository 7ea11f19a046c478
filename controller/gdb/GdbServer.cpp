// Serving gdb: the connection's loop and what each packet asks for. The
// threads gdb sees and their registers and memory are GdbThreadViews.cpp's;
// moving through the execution (resume, reverse, breakpoints, stop replies)
// is GdbMotion.cpp's.
#include "gdb/GdbServer.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli/ExitStatus.h"
#include "gdb/GdbConnection.h"
#include "gdb/GdbMonitor.h"
#include "gdb/GdbPackets.h"
#include "Operation.h"
#include "binary/Symbolizer.h"

namespace ctrl {

namespace {

// ctrl blocks SIGINT and SIGTERM and reads them from a signalfd; while the
// server waits for gdb nobody reads it, so it looks at what is pending.
bool termination_pending() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1;
}

}  // namespace

GdbServer::GdbServer(DebugSession& session) : session_(session) {}

int GdbServer::serve(uint16_t port, std::FILE* log) {
  uint16_t bound = 0;
  int listen_fd = GdbConnection::listen_on(port, bound);
  std::fprintf(stderr, "ctrl: gdb server listening on 127.0.0.1:%u (gdb %s -ex 'target remote :%u')\n", bound,
               session_.program().c_str(), bound);
  std::fflush(stderr);
  int fd = GdbConnection::accept_one(listen_fd, termination_pending);
  if (fd < 0) return kExitNoBug;
  log_ = log;
  GdbConnection connection(fd, log);
  connection.set_stop_check(termination_pending);
  serve_connection(connection);
  return kExitNoBug;
}

void GdbServer::serve_connection(GdbConnection& connection) {
  connection_ = &connection;
  // gdb needs a process id even when the execution has no process.
  pid_ = session_.pid() > 0 ? session_.pid() : 1;
  StopInfo initial;
  initial.reason = session_.ended() && session_.bug() ? StopReason::Bug
                   : session_.ended()                 ? StopReason::Exited
                                                      : StopReason::Step;
  if (initial.reason == StopReason::Bug) initial.thread = session_.bug()->thread;
  // Reply to '?' without console output: gdb does not expect it there.
  connection_ = nullptr;
  stop_reply(initial, std::nullopt);
  connection_ = &connection;
  // gdb's Ctrl-C during a move stops it between two steps.
  session_.set_interrupt_check([this] {
    if (interrupted_ || (connection_ && connection_->poll_interrupt())) interrupted_ = true;
    return interrupted_;
  });
  for (;;) {
    auto in = connection.receive();
    if (in.kind == GdbConnection::Incoming::Kind::Closed) break;
    // An interrupt while stopped was sent for a move gdb thought running
    // (its `next` is step after step): the next move stops at once.
    if (in.kind == GdbConnection::Incoming::Kind::Interrupt) {
      interrupted_ = true;
      continue;
    }
    if (!handle(in.payload) || over_) break;
  }
  session_.set_interrupt_check({});
  connection_ = nullptr;
}

void GdbServer::reply(const std::string& payload) {
  if (connection_) connection_->send(payload);
}

void GdbServer::output(const std::string& text) {
  if (connection_ && !text.empty()) connection_->send(gdb::console_output(text));
}

bool GdbServer::handle(const std::string& packet) {
  if (packet.empty()) {
    reply("");
    return true;
  }
  try {
    switch (packet[0]) {
      case '?':
        reply(last_stop_);
        return true;
      case 'q':
      case 'Q':
        if (packet == "QStartNoAckMode") {
          reply("OK");
          connection_->disable_acks();
          return true;
        }
        if (packet.rfind("qRcmd,", 0) == 0) {
          auto text = gdb::from_hex(std::string_view(packet).substr(6));
          if (!text) {
            reply("E01");
          } else {
            monitor(*text);
            reply("OK");
          }
          return true;
        }
        reply(query(packet));
        return true;
      case 'H': {
        auto thread = gdb::parse_thread_id(std::string_view(packet).substr(std::min<size_t>(2, packet.size())));
        if (packet.size() < 2 || !thread || (packet[1] != 'g' && packet[1] != 'c')) {
          reply("E01");
          return true;
        }
        std::optional<uint32_t> chosen;
        if (thread->kind == gdb::ThreadId::Kind::One) {
          if (!known_thread(thread->index)) {
            reply("E01");
            return true;
          }
          chosen = thread->index;
        }
        (packet[1] == 'g' ? general_thread_ : continue_thread_) = chosen;
        reply("OK");
        return true;
      }
      case 'T': {
        auto thread = gdb::parse_thread_id(std::string_view(packet).substr(1));
        bool alive = thread && thread->kind == gdb::ThreadId::Kind::One && known_thread(thread->index);
        reply(alive ? "OK" : "E01");
        return true;
      }
      case 'g':
      case 'p':
        reply(read_registers(packet));
        return true;
      case 'm':
        reply(read_memory(packet));
        return true;
      case 'G':
      case 'P':
      case 'M':
      case 'X':
        // ctrl replays the recorded execution: a write would make it diverge.
        std::fprintf(stderr, "ctrl: gdb tried to write to the target, which is read-only\n");
        reply("E01");
        return true;
      case 'Z':
      case 'z':
        reply(breakpoint(packet));
        return true;
      case 'c':
      case 'C':
        resume('c', std::nullopt);
        return true;
      case 's':
      case 'S':
        // Hc names one thread under scheduler-locking: the others stay.
        resume('s', continue_thread_, !continue_thread_);
        return true;
      case 'b':
        if (packet == "bc" || packet == "bs") {
          reverse(packet == "bs");
        } else {
          reply("");
        }
        return true;
      case 'v':
        if (packet == "vCont?") {
          reply("vCont;c;C;s;S;t");
          return true;
        }
        if (packet.rfind("vCont;", 0) == 0) {
          auto actions = gdb::parse_vcont(packet);
          if (!actions) {
            reply("E01");
            return true;
          }
          // All-stop: one thread steps (the first 's' naming one), else the
          // schedule continues. A 'c' beside the step lets the others run.
          for (const auto& a : *actions) {
            if (a.action == 's') {
              std::optional<uint32_t> thread;
              if (a.thread.kind == gdb::ThreadId::Kind::One) thread = a.thread.index;
              bool others = false;
              for (const auto& o : *actions) others = others || o.action == 'c';
              resume('s', thread, others);
              return true;
            }
          }
          for (const auto& a : *actions) {
            if (a.action == 'c') {
              resume('c', std::nullopt);
              return true;
            }
          }
          reply("OK");  // only 't': every thread is stopped already
          return true;
        }
        if (packet.rfind("vKill", 0) == 0) {
          reply("OK");
          return false;
        }
        reply("");
        return true;
      case 'D':
        reply("OK");
        return false;
      case 'k':
        return false;
      default:
        reply("");
        return true;
    }
  } catch (const UsageError& e) {
    // A request the session refuses (bad thread, step past the end): gdb
    // gets an error for it and the session goes on.
    std::fprintf(stderr, "ctrl: gdb request '%s': %s\n", packet.substr(0, 40).c_str(), e.what());
    reply("E01");
    return true;
  }
}

std::string GdbServer::query(const std::string& packet) {
  if (packet.rfind("qSupported", 0) == 0) {
    return "PacketSize=" + gdb::hex_number(kPacketSize) +
           ";QStartNoAckMode+;multiprocess+;swbreak+;vContSupported+;ReverseContinue+;ReverseStep+"
           ";qXfer:features:read+;qXfer:auxv:read+;qXfer:threads:read+;qXfer:exec-file:read+"
           ";qXfer:libraries-svr4:read+";
  }
  if (packet.rfind("qXfer:", 0) == 0) return xfer(packet);
  if (packet == "qfThreadInfo") {
    std::string ids;
    for (const auto& t : thread_list()) ids += (ids.empty() ? "m" : ",") + gdb::thread_id(pid_, t.index);
    return ids.empty() ? "l" : ids;
  }
  if (packet == "qsThreadInfo") return "l";
  if (packet == "qC") return "QC" + gdb::thread_id(pid_, general_thread());
  if (packet.rfind("qAttached", 0) == 0) return "1";
  if (packet.rfind("qGetTLSAddr:", 0) == 0) return tls_address(packet);
  if (packet.rfind("qThreadExtraInfo,", 0) == 0) {
    auto thread = gdb::parse_thread_id(std::string_view(packet).substr(17));
    if (!thread || thread->kind != gdb::ThreadId::Kind::One) return "E01";
    for (const auto& t : thread_list())
      if (t.index == thread->index) return gdb::to_hex(t.description);
    return "E01";
  }
  return "";
}

std::string GdbServer::xfer(const std::string& packet) {
  auto request = gdb::parse_xfer_read(packet);
  if (!request) return "";  // writes, and objects not offered
  std::string document;
  if (request->object == "features") {
    if (request->annex != "target.xml") return "E00";
    document = gdb::target_xml();
  } else if (request->object == "auxv") {
    // A fork has its parent's auxiliary vector: any process of the session
    // gives the program's load address (AT_PHDR, AT_ENTRY) and the vdso.
    std::ifstream in("/proc/" + std::to_string(session_.pid()) + "/auxv", std::ios::binary);
    if (!in) return "E01";
    document.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else if (request->object == "threads") {
    std::vector<gdb::ThreadEntry> entries;
    for (const auto& t : thread_list()) {
      gdb::ThreadEntry e;
      e.index = t.index;
      e.name =
          "T" + std::to_string(t.index) + " " + (t.state == ThreadView::State::Finished ? "finished" : t.operation);
      e.extra = t.description;
      if (!t.where.empty() && t.description.find(t.where) == std::string::npos)
        e.extra += (e.extra.empty() ? "" : " at ") + t.where;
      entries.push_back(std::move(e));
    }
    document = gdb::threads_xml(pid_, entries);
  } else if (request->object == "libraries-svr4") {
    // The program's libraries without ctrl's agent (ProgramLibraries.h);
    // the last list read once the process is gone.
    std::ifstream in("/proc/" + std::to_string(session_.pid()) + "/auxv", std::ios::binary);
    std::string auxv(std::istreambuf_iterator<char>(in), {});
    auto read = [this](uint64_t addr, void* buffer, size_t size) { return session_.read_memory(addr, buffer, size); };
    if (auto list = session_.pid() > 0 ? program_libraries(auxv, read) : std::nullopt)
      libraries_ = gdb::libraries_svr4_xml(*list);
    if (libraries_.empty()) return "E01";
    document = libraries_;
  } else if (request->object == "exec-file") {
    char* real = realpath(session_.program().c_str(), nullptr);
    document = real ? real : session_.program();
    std::free(real);
  } else {
    return "";
  }
  return gdb::xfer_slice(document, request->offset, request->length);
}

void GdbServer::monitor(const std::string& text) {
  uint64_t before = session_.position();
  run_monitor_command(
      session_, pid_, text, [this](const std::string& t) { output(t); },
      [this](const MonitorMove& move) { return moving(move); });
  if (session_.position() != before) at_breakpoint_.reset();
}

}  // namespace ctrl
