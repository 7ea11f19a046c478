#include "GdbServer.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "ExitStatus.h"
#include "GdbConnection.h"
#include "GdbMonitor.h"
#include "GdbPackets.h"
#include "Operation.h"
#include "OperationSite.h"
#include "Symbolizer.h"

namespace ctrl {

namespace {

constexpr uint64_t kPacketSize = 0x4000;
constexpr uint64_t kPage = 4096;

constexpr int kSigInt = 2, kSigTrap = 5, kSigAbrt = 6, kSigKill = 9, kSigSegv = 11;

// ctrl blocks SIGINT and SIGTERM and reads them from a signalfd; while the
// server waits for gdb nobody reads it, so it looks at what is pending.
bool termination_pending() {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1;
}

std::string hex_byte(int value) {
  char buffer[4];
  std::snprintf(buffer, sizeof buffer, "%02x", value & 0xff);
  return buffer;
}

// Whether step event `e` performed an operation that breakpoint `b` stops
// before: the match DebugSession applies to a pending operation
// (BreakpointSet::hit), applied to a past step. Keep the two alike.
bool event_hits(const Breakpoint& b, const shm::Event& e, Symbolizer& symbolizer) {
  if (b.kind == Breakpoint::Kind::Watch) return e.addr && e.addr < b.address + b.size && b.address < e.addr + 8;
  if (!e.site) return false;
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
  for (;;) {
    auto in = connection.receive();
    if (in.kind == GdbConnection::Incoming::Kind::Closed) break;
    // An interrupt while stopped came too late for the run it was meant
    // for: the stop was already reported.
    if (in.kind == GdbConnection::Incoming::Kind::Interrupt) continue;
    if (!handle(in.payload) || over_) break;
  }
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
        resume('s', continue_thread_);
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
          // schedule continues.
          for (const auto& a : *actions) {
            if (a.action == 's') {
              std::optional<uint32_t> thread;
              if (a.thread.kind == gdb::ThreadId::Kind::One) thread = a.thread.index;
              resume('s', thread);
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
           ";qXfer:features:read+;qXfer:auxv:read+;qXfer:threads:read+;qXfer:exec-file:read+";
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
  } else if (request->object == "exec-file") {
    char* real = realpath(session_.program().c_str(), nullptr);
    document = real ? real : session_.program();
    std::free(real);
  } else {
    return "";
  }
  return gdb::xfer_slice(document, request->offset, request->length);
}

uint32_t GdbServer::thread_of_step(uint64_t step) {
  uint32_t t = session_.schedule()[step];
  // Under tso/pso a flush actor stands for the thread whose buffer it drains.
  return t >= shm::kFlushActorBase ? t - shm::kFlushActorBase : t;
}

uint32_t GdbServer::next_thread() {
  uint64_t position = session_.position();
  if (position < session_.schedule().size()) return thread_of_step(position);
  if (auto recorded = session_.recorded_next())
    return *recorded >= shm::kFlushActorBase ? *recorded - shm::kFlushActorBase : *recorded;
  if (position > 0) return thread_of_step(position - 1);
  uint64_t enabled = session_.enabled();
  for (uint32_t t = 0; t < 64; ++t)
    if (enabled >> t & 1) return t >= shm::kFlushActorBase ? t - shm::kFlushActorBase : t;
  return 0;
}

std::string GdbServer::tls_address(const std::string& packet) {
  // "qGetTLSAddr:THREAD,OFFSET,LM": the address of OFFSET in the TLS block
  // of the module whose link_map is LM, for THREAD.
  auto arguments = gdb::split(std::string_view(packet).substr(12), ',');
  if (arguments.size() != 3) return "E01";
  auto thread = gdb::parse_thread_id(arguments[0]);
  auto offset = gdb::parse_hex(arguments[1]);
  auto link_map = gdb::parse_hex(arguments[2]);
  if (!thread || !offset || !link_map) return "E01";
  uint32_t index = thread->kind == gdb::ThreadId::Kind::One ? thread->index : general_thread();
  // Only the executable's block is found without glibc's private link_map
  // fields: it is TLS module 1 whenever it has TLS, and its link_map is the
  // one with an empty l_name (the third word of the public struct link_map).
  uint64_t name = 0;
  char first = 1;
  if (!session_.read_memory(*link_map + 8, &name, sizeof name) || !session_.read_memory(name, &first, 1)) return "E01";
  if (first != '\0') return "E02";
  // x86-64: the thread pointer points at tcbhead_t, whose second word is
  // the dtv; dtv[1] (16-byte entries) holds module 1's block.
  uint64_t tp = session_.thread_pointer(index), dtv = 0, block = 0;
  if (tp == 0 || !session_.read_memory(tp + 8, &dtv, sizeof dtv) ||
      !session_.read_memory(dtv + 16, &block, sizeof block) || block == 0 || block == UINT64_MAX)
    return "E03";
  return gdb::hex_number(block + *offset);
}

uint32_t GdbServer::with_pc(uint32_t thread) {
  constexpr int kRipField = 16;
  auto has_pc = [&](uint32_t t) {
    auto registers = registers_of(t);
    return registers && (registers->known >> kRipField & 1);
  };
  if (has_pc(thread)) return thread;
  for (const auto& t : thread_list())
    if (has_pc(t.index)) return t.index;
  return thread;
}

std::vector<ThreadView> GdbServer::thread_list() {
  std::vector<ThreadView> threads = session_.threads();
  if (!threads.empty()) {
    last_threads_ = threads;
    return threads;
  }
  // No process (the execution ended): gdb keeps the threads it knew, as
  // they were last seen, so that it can stand at the end and go back.
  threads = last_threads_;
  // Threads gdb was not shown yet (created since the last stop) are known
  // from the steps they performed.
  std::set<uint32_t> listed;
  for (const auto& t : threads) listed.insert(t.index);
  auto add = [&](uint32_t index) {
    if (index >= shm::kFlushActorBase || !listed.insert(index).second) return;
    ThreadView v;
    v.index = index;
    threads.push_back(v);
  };
  for (const auto& e : session_.events()) add(e.thread);
  if (const ExecutionResult* bug = session_.bug()) add(bug->thread);
  if (threads.empty()) add(0);
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  for (auto& t : threads) {
    t.state = ThreadView::State::Finished;
    t.description = "the execution has ended, its process is gone" +
                    (t.description.empty() ? "" : "; last seen: " + t.description) +
                    (t.where.empty() ? "" : " at " + t.where);
    t.where.clear();
  }
  return threads;
}

bool GdbServer::known_thread(uint32_t index) {
  for (const auto& t : thread_list())
    if (t.index == index) return true;
  return false;
}

std::optional<ThreadRegisters> GdbServer::registers_of(uint32_t thread) {
  std::optional<ThreadRegisters> registers;
  try {
    registers = session_.registers(thread);
  } catch (const UsageError&) {
    // No process: the execution ended in a crash or an exit. gdb gets the
    // registers the thread had when gdb last saw it, so that it can show
    // where the thread was and go back from there (memory is unreadable).
    // The thread that crashed is shown at the faulting instruction (its
    // other registers are not known).
    const ExecutionResult* bug = session_.bug();
    constexpr int kRipField = 16;
    if (bug && bug->thread == thread && bug->site) {
      ThreadRegisters at_bug;
      at_bug.regs.rip = bug->site;
      at_bug.known = uint64_t{1} << kRipField;
      return at_bug;
    }
    auto it = last_registers_.find(thread);
    if (it != last_registers_.end()) return it->second;
    return std::nullopt;
  }
  if (!registers) return registers;
  constexpr int kRipField = 16;
  // Parked in an interposed call, the program frame's pc is the call's
  // return address: gdb is shown the call itself, which the thread is about
  // to perform (the other registers are the same before and after a call).
  if (registers->known >> kRipField & 1) {
    for (const auto& t : session_.threads()) {
      if (t.index != thread || t.pending_site != registers->regs.rip || exact_site(t.pending)) continue;
      char code[16];
      uint64_t from = registers->regs.rip > sizeof code ? registers->regs.rip - sizeof code : 0;
      if (session_.read_memory(from, code, registers->regs.rip - from))
        if (auto call = gdb::call_before(std::string_view(code, registers->regs.rip - from), registers->regs.rip))
          registers->regs.rip = *call;
    }
  }
  last_registers_[thread] = *registers;
  return registers;
}

uint32_t GdbServer::general_thread() { return general_thread_ ? *general_thread_ : last_stop_thread_; }

std::string GdbServer::read_registers(const std::string& packet) {
  uint32_t thread = general_thread();
  auto registers = registers_of(thread);
  if (packet[0] == 'g') return gdb::encode_registers(registers);
  auto number = gdb::parse_hex(std::string_view(packet).substr(1));
  if (!number) return "E01";
  auto value = gdb::encode_register(registers, *number);
  return value ? *value : "E45";
}

std::string GdbServer::read_memory(const std::string& packet) {
  auto range = gdb::parse_memory_range(std::string_view(packet).substr(1));
  if (!range) return "E01";
  uint64_t length = std::min<uint64_t>(range->length, (kPacketSize - 16) / 2);
  std::string bytes(length, '\0');
  if (length == 0 || session_.read_memory(range->address, bytes.data(), length)) return gdb::to_hex(bytes);
  // Part of the range may be readable: gdb takes a shorter reply as that.
  uint64_t done = 0;
  while (done < length) {
    uint64_t address = range->address + done;
    uint64_t chunk = std::min(length - done, kPage - address % kPage);
    if (!session_.read_memory(address, bytes.data() + done, chunk)) break;
    done += chunk;
  }
  if (done == 0) return "E14";
  bytes.resize(done);
  return gdb::to_hex(bytes);
}

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
    const Breakpoint& b = session_.add_watch("0x" + gdb::hex_number(request->address));
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
  bool interrupted = false;
  auto on_step = [&](const std::string& line) {
    if (++lines <= kStepLines) output(line + "\n");
    if (connection_ && connection_->poll_interrupt()) interrupted = true;
  };
  StopInfo stop = move(on_step);
  if (lines > kStepLines) output("... " + std::to_string(lines - kStepLines) + " more steps\n");
  if (interrupted) output("ctrl: the interrupt came while running; ctrl runs to the next stop\n");
  return stop;
}

void GdbServer::resume(char action, std::optional<uint32_t> thread) {
  StopInfo stop;
  try {
    if (action == 's') {
      stop = moving([&](const auto& on_step) { return session_.step(thread, 1, on_step); });
      if (stop.thread == UINT32_MAX && session_.position() > 0) stop.thread = thread_of_step(session_.position() - 1);
    } else {
      stop = moving([&](const auto& on_step) { return session_.cont(on_step); });
    }
  } catch (const UsageError& e) {
    // The thread cannot move (blocked, finished, past the end): gdb still
    // needs a stop, at the same place.
    output(std::string("ctrl: ") + e.what() + "\n");
    stop = StopInfo{};
    stop.thread = thread ? *thread : last_stop_thread_;
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
        if (event_hits(b, events[k], symbolizer)) {
          target = k;
          hit = b.number;
          break;
        }
      }
    }
    // No earlier hit: back to the start, where the history begins.
    if (!target && position > 0) target = 0;
  }
  StopInfo stop;
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
  stop.thread = step ? stepping : next_thread();
  bool history_begins = step ? !target : hit < 0;
  stop_reply(stop, std::nullopt, history_begins);
}

int GdbServer::bug_signal() const {
  const ExecutionResult* bug = session_.bug();
  if (!bug) return kSigTrap;
  if (bug->kind == "assertion") return kSigAbrt;
  if (bug->kind != "crash") return kSigTrap;  // deadlock, hang: no signal
  for (int s = 1; s < 32; ++s) {
    const char* name = sigabbrev_np(s);
    if (name && bug->message.find(std::string("SIG") + name) != std::string::npos) return s;
  }
  return kSigSegv;
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
    case StopReason::Breakpoint: {
      // gdb takes a software breakpoint stop at a pc where none of its
      // breakpoints is for a stale one and silently resumes: say swbreak
      // only when the thread is exactly at one (a trapped instruction).
      auto registers = registers_of(thread);
      constexpr int kRipField = 16;
      if (registers && (registers->known >> kRipField & 1) && inserted_.count(registers->regs.rip))
        reason = "swbreak:;";
      break;
    }
    case StopReason::Watchpoint:
      for (const auto& b : session_.breakpoints())
        if (b.number == stop.breakpoint) reason = "awatch:" + gdb::hex_number(b.address) + ";";
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
  if (!stop.message.empty()) output(stop.message + "\n");
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

void GdbServer::monitor(const std::string& text) {
  run_monitor_command(
      session_, pid_, text, [this](const std::string& t) { output(t); },
      [this](const MonitorMove& move) { return moving(move); });
}

}  // namespace ctrl
