#include "debug/DebugPrompt.h"

#include <editline/readline.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "binary/Backtracer.h"
#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "debug/DebugSession.h"
#include "debug/MemoryExaminer.h"
#include "debug/NumberText.h"
#include "debug/VariablePrinter.h"
#include "exploration/Explorer.h"
#include "reports/Report.h"

namespace ctrl {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

uint64_t number(const std::string& text, const char* what) {
  auto v = parse_number(text);
  if (!v) throw UsageError(fmt::format("{}: '{}' is not a number", what, text));
  return *v;
}

// "T3", "3", "F1" (flush actor 1 under tso/pso).
uint32_t thread_id(const std::string& text) {
  if (text.size() > 1 && (text[0] == 'F' || text[0] == 'f'))
    return uint32_t(shm::kFlushActorBase + number(text.substr(1), "flush actor"));
  std::string t = (text.size() > 1 && (text[0] == 'T' || text[0] == 't')) ? text.substr(1) : text;
  uint64_t v = number(t, "thread");
  if (v >= shm::kMaxThreads) throw UsageError(fmt::format("no thread T{}", v));
  return uint32_t(v);
}

bool is_thread_word(const std::string& w) {
  if (w.empty()) return false;
  size_t from = (w[0] == 'T' || w[0] == 't' || w[0] == 'F' || w[0] == 'f') ? 1 : 0;
  return from < w.size() && w.find_first_not_of("0123456789", from) == std::string::npos;
}

const char* kHelp =
    "commands (short forms in brackets):\n"
    "  threads [info threads]     every thread: state, next operation, where\n"
    "  buffers                    store buffers under --model tso/pso\n"
    "  step [s] [T] [N]           thread T (T3) performs its next N visible operations; a blocked T waits\n"
    "                             while the others run\n"
    "  next [n] [N]               N steps along the recorded schedule (else the last thread)\n"
    "  continue [c]               follow the schedule to a breakpoint, the bug or the end\n"
    "  back [N]                   go back N steps (default 1)\n"
    "  goto STEP                  go to the state after STEP steps (0: the start)\n"
    "  break [b] LOCATION         stop before an operation at FUNCTION, FILE:LINE or [*]0xADDRESS\n"
    "  watch [T] EXPRESSION       stop after a step that writes it (an expression as print takes, or 0xADDRESS)\n"
    "  rwatch, awatch ...         the same for a read, for any access\n"
    "  delete [d] [N]             delete breakpoint N (all without N)\n"
    "  info breakpoints [info b]  list breakpoints and watchpoints\n"
    "  bt [T|all]                 backtrace of T (default: the next thread), or of every thread\n"
    "  regs [T]                   registers of T's innermost program frame\n"
    "  print [p] [T] EXPRESSION   a local of T's program frame, a global or a thread-local (T's) by name:\n"
    "                             name, &name, *p, a[i], s.f, p->f\n"
    "  x/FMT ADDRESS              examine memory as gdb does (formats xzduotcafsi, units bhwg)\n"
    "  checkpoint                 keep this step as a live checkpoint (a parked copy of the process)\n"
    "  info checkpoints           list them (\"-\": an automatic one, taken on a long move, used by back/goto)\n"
    "  restart ID                 continue from checkpoint ID\n"
    "  schedule                   the interleaving so far\n"
    "  save FILE                  write the schedule as a trace (ctrl replay FILE)\n"
    "  explore [OPTIONS]          explore from this step (--strategy dpor|random|pct|round-robin, --seed N,\n"
    "                             --max-executions N, --time-limit S, --trace-dir DIR, --keep-going)\n"
    "  time COMMAND               run COMMAND and say how long it took\n"
    "  quit [q]                   end the session\n";

}  // namespace

DebugPrompt::DebugPrompt(DebugSession& session, std::FILE* out) : session_(session), out_(out) {}
DebugPrompt::~DebugPrompt() = default;

VariablePrinter& DebugPrompt::printer() {
  if (!printer_) {
    if (session_.pid() <= 0) throw UsageError("no paused execution to read from (go back to a step first)");
    printer_ = std::make_unique<VariablePrinter>(session_.pid());
  }
  return *printer_;
}

std::optional<FrameContext> DebugPrompt::frame_of(uint32_t thread) {
  // The thread's innermost program frame: its locals and parameters come
  // first in print and watch.
  std::optional<FrameContext> frame;
  if (auto regs = session_.registers(thread)) {
    auto frames = session_.backtrace(thread);
    frame = FrameContext{};
    frame->pc = regs->regs.rip;
    frame->exact_pc = !frames.empty() && (frames.front() & Backtracer::kExactIp);
    frame->regs = regs->regs;
    frame->known = regs->known;
  }
  return frame;
}

uint32_t DebugPrompt::current_thread() {
  auto next = session_.recorded_next();
  if (next && *next < shm::kFlushActorBase) return *next;
  for (const ThreadView& v : session_.threads())
    if (v.state == ThreadView::State::Running) return v.index;
  return 0;
}

void DebugPrompt::where() {
  uint64_t pos = session_.position();
  if (session_.ended()) {
    const ExecutionResult* bug = session_.bug();
    fmt::print(out_, "at step {}: the execution has ended{}\n", pos,
               bug ? fmt::format(" ({}: {})", bug->kind_name(), bug->message) : "");
    return;
  }
  std::string next;
  auto recorded = session_.recorded_next();
  for (const ThreadView& v : session_.threads())
    if (recorded ? v.index == *recorded : v.state == ThreadView::State::Running)
      next = fmt::format("; next: T{} {}{}", v.index, v.operation, v.where.empty() ? "" : " at " + v.where);
  fmt::print(out_, "at step {}{}{}\n", pos, session_.following_recording() ? " of the recording" : "", next);
}

void DebugPrompt::show_stop(const StopInfo& stop) {
  if (stop.ctrl_c && batch_) {
    fmt::print(out_, "{}: the stepping session ends\n", stop.message);
    interrupted_ = true;
    return;
  }
  switch (stop.reason) {
    case StopReason::Step:
      if (!stop.message.empty()) fmt::print(out_, "{}\n", stop.message);
      where();
      return;
    case StopReason::Breakpoint:
    case StopReason::Watchpoint:
      fmt::print(out_, "{}\n", stop.message);
      where();
      return;
    case StopReason::Bug:
      fmt::print(out_, "bug at step {}: {}\n", session_.position(), stop.message);
      // A crash or an assertion ended the process: its report, as ctrl
      // attach prints it (a deadlock stays inspectable with threads and bt).
      if (const ExecutionResult* bug = session_.bug(); bug && !bug->backtraces.empty()) {
        FoundBug found;
        found.result = *bug;
        print_bug(out_, found, 1, session_.symbolizer());
      }
      return;
    case StopReason::Exited:
      fmt::print(out_, "end at step {}: {}\n", session_.position(), stop.message);
      return;
    case StopReason::Interrupted:
      fmt::print(out_, "{}\n", stop.message);
      interrupted_ = true;
      return;
    default:
      fmt::print(out_, "{}\n", stop.message);
  }
}

bool DebugPrompt::execute(const std::string& line) {
  std::vector<std::string> w = words(line);
  if (w.empty() || w[0].starts_with("#")) return true;
  if (w[0] == "time" && w.size() > 1) {
    // `time COMMAND`: how long the command took, for the figures in
    // docs/PERFORMANCE.md.
    auto begin = std::chrono::steady_clock::now();
    bool go_on = execute(line.substr(line.find("time") + 4));
    fmt::print(out_, "time: {:.1f} ms\n",
               std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    std::fflush(out_);
    return go_on;
  }
  const std::string& cmd = w[0];
  auto print_step = [&](const std::string& s) { fmt::print(out_, "{}\n", s); };
  try {
    if (cmd == "quit" || cmd == "q" || cmd == "exit") return false;
    if (cmd == "help" || cmd == "h") {
      fmt::print(out_, "{}", kHelp);
    } else if (cmd == "threads" || (cmd == "info" && w.size() > 1 && w[1] == "threads")) {
      auto threads = session_.threads();
      if (threads.empty() && session_.bug()) {
        // The process is gone (a crash, an assertion): the report's view.
        for (const auto& bt : session_.bug()->backtraces)
          fmt::print(out_, "  T{} (tid {}): {}\n", bt.thread, bt.tid, bt.state);
      }
      auto next = session_.recorded_next();
      for (const ThreadView& v : threads)
        fmt::print(out_, "{} T{} (tid {}): {}{}\n", next && *next == v.index ? "*" : " ", v.index, v.tid, v.description,
                   v.where.empty() ? "" : "   at " + v.where);
      uint64_t flushes = session_.enabled() >> shm::kFlushActorBase;
      if (flushes) {
        std::string list;
        for (uint32_t a = 0; flushes >> a; ++a)
          if ((flushes >> a) & 1) list += fmt::format(" F{}", a);
        fmt::print(out_, "  flushes that may run:{}\n", list);
      }
    } else if (cmd == "buffers") {
      auto lines = session_.buffers();
      if (lines.empty()) fmt::print(out_, "no buffered stores\n");
      for (const auto& l : lines) fmt::print(out_, "  {}\n", l);
    } else if (cmd == "step" || cmd == "s") {
      // step N counts steps, as gdb's does; a thread alone is named T3 (or
      // F1); `step 3 2` is thread 3's two steps.
      std::optional<uint32_t> thread;
      uint64_t n = 1;
      if (w.size() > 3) throw UsageError("usage: step [T] [N]");
      if (w.size() == 3) {
        if (!is_thread_word(w[1])) throw UsageError("usage: step [T] [N]");
        thread = thread_id(w[1]);
        n = number(w[2], "step count");
      } else if (w.size() == 2) {
        bool named = is_thread_word(w[1]) && std::string("TtFf").find(w[1][0]) != std::string::npos;
        if (named)
          thread = thread_id(w[1]);
        else
          n = number(w[1], "step count");
      }
      show_stop(session_.step(thread, n, print_step));
    } else if (cmd == "next" || cmd == "n") {
      uint64_t n = w.size() > 1 ? number(w[1], "step count") : 1;
      show_stop(session_.step(std::nullopt, n, print_step));
    } else if (cmd == "continue" || cmd == "c") {
      show_stop(session_.cont(print_step));
    } else if (cmd == "back") {
      uint64_t n = w.size() > 1 ? number(w[1], "step count") : 1;
      show_stop(session_.back(n));
    } else if (cmd == "goto") {
      if (w.size() != 2) throw UsageError("usage: goto STEP");
      show_stop(session_.go_to(number(w[1], "step")));
    } else if (cmd == "break" || cmd == "b") {
      if (w.size() != 2) throw UsageError("usage: break FUNCTION|FILE:LINE|0xADDRESS");
      const Breakpoint& b = session_.add_breakpoint(w[1]);
      fmt::print(out_, "Breakpoint {} at {}\n", b.number, b.spec);
    } else if (cmd == "watch" || cmd == "rwatch" || cmd == "awatch") {
      // [T] EXPRESSION, as print takes it (T: whose locals and
      // thread-locals), or an address (one byte). Like gdb's, a watchpoint
      // stops after the step that wrote (rwatch: read, awatch: either) it.
      size_t i = 1;
      uint32_t t = current_thread();
      if (w.size() > 2 && is_thread_word(w[1]) && (w[1][0] == 'T' || w[1][0] == 't')) t = thread_id(w[i++]);
      if (i >= w.size()) throw UsageError(fmt::format("usage: {} [T] EXPRESSION|ADDRESS", cmd));
      std::string expr;
      for (; i < w.size(); ++i) expr += (expr.empty() ? "" : " ") + w[i];
      auto access = cmd == "watch"    ? Breakpoint::Access::Write
                    : cmd == "rwatch" ? Breakpoint::Access::Read
                                      : Breakpoint::Access::Any;
      std::optional<std::pair<uint64_t, uint64_t>> at;
      // `&name` watches name, as before expressions were taken.
      std::string target = expr.starts_with("&") ? expr.substr(1) : expr;
      if (auto address = parse_number(target)) {
        at = std::make_pair(*address, uint64_t{1});
      } else if (session_.pid() > 0) {
        auto read = [&](uint64_t addr, void* buf, size_t len) { return session_.read_memory(addr, buf, len); };
        std::optional<FrameContext> frame = frame_of(t);
        at = printer().address_of(target, session_.thread_pointer(t), read, frame ? &*frame : nullptr);
      } else {
        // No process to evaluate in (the execution ended): a global by name.
        const Breakpoint& b = session_.add_watch(target);
        at = std::make_pair(b.address, b.size);
        session_.remove_breakpoint(b.number);
      }
      if (!at) throw UsageError(fmt::format("{}: no variable \"{}\" in the program", cmd, target));
      const Breakpoint& b = session_.add_watch(at->first, at->second, access, expr);
      fmt::print(out_, "Watchpoint {}: {} ({} bytes at {:#x})\n", b.number, b.spec, b.size, b.address);
    } else if (cmd == "delete" || cmd == "d") {
      if (w.size() == 1) {
        session_.clear_breakpoints();
      } else {
        for (size_t i = 1; i < w.size(); ++i)
          if (!session_.remove_breakpoint(int(number(w[i], "breakpoint"))))
            throw UsageError(fmt::format("no breakpoint {}", w[i]));
      }
    } else if (cmd == "info" && w.size() > 1 && (w[1] == "breakpoints" || w[1] == "b" || w[1] == "watchpoints")) {
      if (session_.breakpoints().empty()) fmt::print(out_, "no breakpoints\n");
      for (const Breakpoint& b : session_.breakpoints())
        fmt::print(out_, "{:<3} {} {} (hit {} time{})\n", b.number,
                   b.kind == Breakpoint::Kind::Watch ? "watchpoint" : "breakpoint", b.spec, b.hits,
                   b.hits == 1 ? "" : "s");
    } else if (cmd == "bt" || cmd == "backtrace") {
      std::vector<uint32_t> which;
      if (w.size() > 1 && w[1] == "all") {
        for (const ThreadView& v : session_.threads())
          if (v.state != ThreadView::State::Finished) which.push_back(v.index);
      } else if (w.size() > 1) {
        which.push_back(thread_id(w[1]));
      } else {
        auto next = session_.recorded_next();
        uint32_t t = 0;
        for (const ThreadView& v : session_.threads())
          if (v.state == ThreadView::State::Running) t = v.index;
        which.push_back(next && *next < shm::kFlushActorBase ? *next : t);
      }
      Symbolizer& symbols = session_.symbolizer();
      for (uint32_t t : which) {
        fmt::print(out_, "T{}:\n", t);
        int n = 0;
        for (uint64_t f : session_.backtrace(t)) {
          bool exact = f & Backtracer::kExactIp;
          uint64_t ip = f & ~Backtracer::kExactIp;
          fmt::print(out_, "  #{:<2} {}\n", n++, symbols.describe_code(exact ? ip : ip - 1));
        }
      }
    } else if (cmd == "regs" || (cmd == "info" && w.size() > 1 && (w[1] == "registers" || w[1] == "r"))) {
      size_t arg = cmd == "regs" ? 1 : 2;
      uint32_t t = 0;
      if (w.size() > arg) {
        t = thread_id(w[arg]);
      } else {
        for (const ThreadView& v : session_.threads())
          if (v.state == ThreadView::State::Running) t = v.index;
      }
      auto r = session_.registers(t);
      if (!r) throw UsageError(fmt::format("T{}'s registers cannot be read", t));
      const char* names[] = {"r15",    "r14", "r13", "r12",     "rbp",     "rbx", "r11",      "r10", "r9",
                             "r8",     "rax", "rcx", "rdx",     "rsi",     "rdi", "orig_rax", "rip", "cs",
                             "eflags", "rsp", "ss",  "fs_base", "gs_base", "ds",  "es",       "fs",  "gs"};
      const auto* fields = reinterpret_cast<const unsigned long long*>(&r->regs);
      // gdb's order, the general registers first.
      const int order[] = {10, 5, 11, 12, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16, 18, 21, 22};
      for (int i : order) {
        if ((r->known >> i) & 1)
          fmt::print(out_, "{:<8} {:#018x}\n", names[i], fields[i]);
        else
          fmt::print(out_, "{:<8} <not saved>\n", names[i]);
      }
    } else if (cmd == "print" || cmd == "p") {
      // print [T] EXPRESSION: thread-locals are T's (default: the next thread's).
      size_t i = 1;
      uint32_t t = current_thread();
      if (w.size() > 2 && is_thread_word(w[1]) && (w[1][0] == 'T' || w[1][0] == 't')) t = thread_id(w[i++]);
      if (i >= w.size()) throw UsageError("usage: print [T] EXPRESSION");
      std::string expr;
      for (; i < w.size(); ++i) expr += (expr.empty() ? "" : " ") + w[i];
      VariablePrinter& vp = printer();
      uint64_t tp = session_.thread_pointer(t);
      auto read = [&](uint64_t addr, void* buf, size_t len) { return session_.read_memory(addr, buf, len); };
      std::optional<FrameContext> frame = frame_of(t);
      fmt::print(out_, "{}\n", vp.print(expr, read, tp, frame ? &*frame : nullptr));
    } else if (cmd.starts_with("x/") || cmd == "x") {
      VariablePrinter& vp = printer();
      if (!examiner_) {
        examiner_ = std::make_unique<MemoryExaminer>(
            [this](const std::string& expr) -> std::optional<uint64_t> {
              auto read = [&](uint64_t addr, void* buf, size_t len) { return session_.read_memory(addr, buf, len); };
              auto at = printer_->address_of(expr, session_.thread_pointer(examined_thread_), read);
              if (!at) return std::nullopt;
              return at->first;
            },
            [this](uint64_t addr) { return printer_->symbol_at(addr); });
      }
      (void)vp;
      examined_thread_ = current_thread();
      auto read = [&](uint64_t addr, void* buf, size_t len) { return session_.read_memory(addr, buf, len); };
      std::string text = examiner_->examine(line.substr(line.find('x') + 1), read);
      fmt::print(out_, "{}{}", text, text.ends_with("\n") ? "" : "\n");
    } else if (cmd == "checkpoint") {
      int id = session_.checkpoint();
      fmt::print(out_, "checkpoint {} at step {}\n", id, session_.position());
    } else if (cmd == "info" && w.size() > 1 && (w[1] == "checkpoints" || w[1] == "c")) {
      auto list = session_.checkpoints();
      if (list.empty()) fmt::print(out_, "no checkpoints\n");
      for (const CheckpointInfo& c : list)
        fmt::print(out_, "{:<3} step {}\n", c.automatic ? std::string("-") : std::to_string(c.id), c.step);
    } else if (cmd == "restart") {
      if (w.size() != 2) throw UsageError("usage: restart CHECKPOINT");
      show_stop(session_.restart(int(number(w[1], "checkpoint"))));
    } else if (cmd == "schedule") {
      uint64_t pos = session_.position();
      for (uint64_t k = 0; k < pos; ++k) fmt::print(out_, "{}\n", session_.describe_step(k));
      if (session_.schedule().size() > pos)
        fmt::print(out_, "({} more step{} known after this one: goto {} returns there)\n",
                   session_.schedule().size() - pos, session_.schedule().size() - pos == 1 ? "" : "s",
                   session_.schedule().size());
    } else if (cmd == "save") {
      if (w.size() != 2) throw UsageError("usage: save FILE");
      session_.save(w[1]);
      fmt::print(out_, "saved {} steps to {}\n", session_.position(), w[1]);
    } else if (cmd == "explore") {
      ExploreOptions options;
      options.trace_dir = "ctrl-traces";
      for (size_t i = 1; i < w.size(); ++i) {
        auto value = [&]() -> const std::string& {
          if (i + 1 >= w.size()) throw UsageError(fmt::format("explore: {} needs a value", w[i]));
          return w[++i];
        };
        if (w[i] == "--strategy") {
          options.strategy = value();
          if (options.strategy != "dpor" && options.strategy != "random" && options.strategy != "pct" &&
              options.strategy != "pos" && options.strategy != "round-robin")
            throw UsageError(fmt::format("explore: unknown strategy {}", options.strategy));
        } else if (w[i] == "--seed") {
          options.seed = number(value(), "--seed");
        } else if (w[i] == "--max-executions") {
          options.max_executions = number(value(), "--max-executions");
          if (options.max_executions == 0) throw UsageError("explore: --max-executions must be at least 1");
        } else if (w[i] == "--time-limit") {
          options.time_limit = double(number(value(), "--time-limit"));
        } else if (w[i] == "--trace-dir") {
          options.trace_dir = value();
        } else if (w[i] == "--keep-going") {
          options.keep_going = true;
        } else {
          throw UsageError(
              fmt::format("explore: unknown option {} (--strategy, --seed, --max-executions, "
                          "--time-limit, --trace-dir, --keep-going)",
                          w[i]));
        }
      }
      fmt::print(out_, "exploring from step {} with strategy {}\n", session_.position(), options.strategy);
      std::fflush(out_);
      ExplorationReport report = session_.explore(options);
      int n = 0;
      for (const auto& bug : report.bugs) print_bug(out_, bug, ++n, session_.symbolizer());
      print_summary(out_, report);
      where();
    } else if (cmd == "where" || cmd == "position") {
      where();
    } else {
      throw UsageError(fmt::format("unknown command \"{}\" (help lists them)", cmd));
    }
  } catch (const TargetLost&) {
    // The program's processes are gone: no command can go on (the next
    // found no paused execution, an internal error). Ends the session.
    throw;
  } catch (const UsageError& e) {
    fmt::print(out_, "error: {}\n", e.what());
    failed_ = true;
  }
  std::fflush(out_);
  return !interrupted_;
}

namespace {

// Lines of standard input read with read(2), so that a poll on the
// descriptor tells the truth (a buffered stream may hold lines poll cannot see).
class LineReader {
 public:
  // False at the end of input or when a signal came first (`signal` set).
  bool next(std::string& line, DebugSession& session, int& signal) {
    for (;;) {
      if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      if (!checked_) {
        // A regular file is read whole at once: the program shares the
        // descriptor, and putting its files back before each execution
        // would move the offset back under ctrl's feet.
        checked_ = true;
        struct stat st;
        if (fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
          char chunk[4096];
          for (ssize_t n; (n = read(0, chunk, sizeof chunk)) > 0;) buffer_.append(chunk, size_t(n));
          eof_ = true;
          continue;
        }
      }
      if (eof_) {
        if (buffer_.empty()) return false;
        line.swap(buffer_);
        buffer_.clear();
        return true;
      }
      pollfd fds[2] = {{0, POLLIN, 0}, {session.signal_fd(), POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      if (fds[1].revents & POLLIN) {
        if ((signal = session.take_signal()) != 0) return false;
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        char chunk[4096];
        ssize_t n = read(0, chunk, sizeof chunk);
        if (n <= 0)
          eof_ = true;
        else
          buffer_.append(chunk, size_t(n));
      }
    }
  }

 private:
  std::string buffer_;
  bool eof_ = false;
  bool checked_ = false;
};

// The terminal prompt's line, handed over by libedit's callback interface.
std::optional<std::string>* g_line = nullptr;
bool g_eof = false;

void take_line(char* raw) {
  if (!raw) {
    g_eof = true;
    return;
  }
  *g_line = std::string(raw);
  std::free(raw);
}

}  // namespace

int DebugPrompt::run(std::istream* script) {
  bool terminal = !script && isatty(0);
  auto echo = [&](const std::string& line) {
    // Batch output echoes each command, as gdb's does with `set trace-commands`.
    // Out at once: what runs now shows while it runs (a long goto).
    if (!words(line).empty() && !line.starts_with("#")) {
      fmt::print(out_, "(ctrl) {}\n", line);
      std::fflush(out_);
    }
  };
  batch_ = script != nullptr;
  // A signal that came while a command that does not run the program
  // worked (bt, print, save) ends a script before its next command.
  auto signalled = [&] {
    int sig = session_.take_signal();
    if (sig) fmt::print(out_, "interrupted by {}: the stepping session ends\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    return sig != 0;
  };
  if (script) {
    for (std::string line; std::getline(*script, line);) {
      if (signalled()) return kExitBadInput;
      echo(line);
      if (!execute(line)) break;
    }
    return failed_ || interrupted_ ? kExitBadInput : kExitNoBug;
  }
  if (!terminal) {
    LineReader reader;
    std::string line;
    int signal = 0;
    while (reader.next(line, session_, signal)) {
      if (signalled()) return kExitBadInput;
      echo(line);
      if (!execute(line)) break;
    }
    if (signal) {
      fmt::print(out_, "interrupted by {}: the stepping session ends\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
      return kExitBadInput;
    }
    return failed_ || interrupted_ ? kExitBadInput : kExitNoBug;
  }
  where();
  // libedit's callback interface, so that SIGINT and SIGTERM (which ctrl
  // reads from a signalfd) are seen while the prompt waits: Ctrl-C drops
  // the line being typed, SIGTERM ends the session.
  std::string last;
  std::optional<std::string> line;
  g_line = &line;
  g_eof = false;
  rl_callback_handler_install("(ctrl) ", take_line);
  int status = kExitNoBug;
  for (;;) {
    pollfd fds[2] = {{0, POLLIN, 0}, {session_.signal_fd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLIN) {
      int signal = session_.take_signal();
      if (signal == SIGTERM) {
        fmt::print(out_, "\ninterrupted by SIGTERM: the stepping session ends\n");
        status = kExitBadInput;
        break;
      }
      if (signal == SIGINT) {
        fmt::print(out_, "^C\n");
        rl_callback_handler_remove();
        rl_callback_handler_install("(ctrl) ", take_line);
      }
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) rl_callback_read_char();
    if (g_eof) break;
    if (!line) continue;
    std::string text = *line;
    line.reset();
    // An empty line repeats the previous command, as in gdb.
    if (words(text).empty())
      text = last;
    else if (text != last)
      add_history(text.c_str());
    last = text;
    // libedit shows the prompt again as soon as a line is taken: only once
    // the command's output is out.
    rl_callback_handler_remove();
    if (!execute(text)) {
      if (interrupted_) status = kExitBadInput;
      break;
    }
    rl_callback_handler_install("(ctrl) ", take_line);
  }
  rl_callback_handler_remove();
  g_line = nullptr;
  return status;
}

}  // namespace ctrl
