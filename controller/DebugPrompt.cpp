#include "DebugPrompt.h"

#include <unistd.h>

#include <editline/readline.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "Backtracer.h"
#include "DebugSession.h"
#include "ExitStatus.h"
#include "Explorer.h"
#include "Report.h"
#include "Symbolizer.h"

namespace ctrl {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

uint64_t number(const std::string& text, const char* what) {
  uint64_t v = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    begin += 2;
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(begin, end, v, base);
  if (begin == end || ec != std::errc() || ptr != end)
    throw UsageError(fmt::format("{}: '{}' is not a number", what, text));
  return v;
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
    "  step [s] [T] [N]           thread T performs its next N visible operations\n"
    "  next [n] [N]               N steps along the recorded schedule (else the last thread)\n"
    "  continue [c]               follow the schedule to a breakpoint, the bug or the end\n"
    "  back [N]                   go back N steps (default 1)\n"
    "  goto STEP                  go to the state after STEP steps (0: the start)\n"
    "  break [b] LOCATION         stop before an operation at FUNCTION, FILE:LINE or 0xADDRESS\n"
    "  watch ADDRESS|VARIABLE     stop before an operation that touches it\n"
    "  delete [d] [N]             delete breakpoint N (all without N)\n"
    "  info breakpoints [info b]  list breakpoints and watchpoints\n"
    "  bt [T|all]                 backtrace of T (default: the next thread), or of every thread\n"
    "  regs [T]                   registers of T's innermost program frame\n"
    "  schedule                   the interleaving so far\n"
    "  save FILE                  write the schedule as a trace (ctrl replay FILE)\n"
    "  explore [OPTIONS]          explore from this step (--strategy dpor|random|round-robin, --seed N,\n"
    "                             --max-executions N, --time-limit S, --trace-dir DIR, --keep-going)\n"
    "  time COMMAND               run COMMAND and say how long it took\n"
    "  quit [q]                   end the session\n";

}  // namespace

DebugPrompt::DebugPrompt(DebugSession& session, std::FILE* out) : session_(session), out_(out) {}
DebugPrompt::~DebugPrompt() = default;

void DebugPrompt::where() {
  uint64_t pos = session_.position();
  if (session_.ended()) {
    const ExecutionResult* bug = session_.bug();
    fmt::print(out_, "at step {}: the execution has ended{}\n", pos,
               bug ? fmt::format(" ({}: {})", bug->kind, bug->message) : "");
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
  switch (stop.reason) {
    case StopReason::Step:
      where();
      return;
    case StopReason::Breakpoint:
    case StopReason::Watchpoint:
      fmt::print(out_, "{}\n", stop.message);
      where();
      return;
    case StopReason::Bug:
      fmt::print(out_, "bug at step {}: {}\n", session_.position(), stop.message);
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
        fmt::print(out_, "{} T{} (tid {}): {}{}\n", next && *next == v.index ? "*" : " ", v.index, v.tid,
                   v.description, v.where.empty() ? "" : "   at " + v.where);
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
      std::optional<uint32_t> thread;
      uint64_t n = 1;
      size_t i = 1;
      if (i < w.size() && is_thread_word(w[i])) thread = thread_id(w[i++]);
      if (i < w.size()) n = number(w[i++], "step count");
      if (i < w.size()) throw UsageError("usage: step [T] [N]");
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
    } else if (cmd == "watch") {
      if (w.size() != 2) throw UsageError("usage: watch ADDRESS|VARIABLE");
      const Breakpoint& b = session_.add_watch(w[1]);
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
      const char* names[] = {"r15", "r14", "r13", "r12", "rbp",     "rbx",     "r11", "r10", "r9",
                             "r8",  "rax", "rcx", "rdx", "rsi",     "rdi",     "orig_rax", "rip", "cs",
                             "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"};
      const auto* fields = reinterpret_cast<const unsigned long long*>(&r->regs);
      // gdb's order, the general registers first.
      const int order[] = {10, 5, 11, 12, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16, 18, 21, 22};
      for (int i : order) {
        if ((r->known >> i) & 1)
          fmt::print(out_, "{:<8} {:#018x}\n", names[i], fields[i]);
        else
          fmt::print(out_, "{:<8} <not saved>\n", names[i]);
      }
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
          if (options.strategy != "dpor" && options.strategy != "random" && options.strategy != "round-robin")
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
          throw UsageError(fmt::format("explore: unknown option {} (--strategy, --seed, --max-executions, "
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
  } catch (const UsageError& e) {
    fmt::print(out_, "error: {}\n", e.what());
    failed_ = true;
  }
  std::fflush(out_);
  return !interrupted_;
}

int DebugPrompt::run(std::istream* script) {
  bool terminal = !script && isatty(0);
  if (!terminal) {
    std::istream& in = script ? *script : std::cin;
    for (std::string line; std::getline(in, line);) {
      // Batch output echoes each command, as gdb's does with `set trace-commands`.
      if (!words(line).empty() && !line.starts_with("#")) fmt::print(out_, "(ctrl) {}\n", line);
      if (!execute(line)) break;
    }
    return failed_ || interrupted_ ? kExitBadInput : kExitNoBug;
  }
  where();
  std::string last;
  for (;;) {
    char* raw = readline("(ctrl) ");
    if (!raw) break;  // end of input
    std::string line(raw);
    std::free(raw);
    // An empty line repeats the previous command, as in gdb.
    if (words(line).empty()) line = last;
    else if (line != last) add_history(line.c_str());
    last = line;
    if (!execute(line)) break;
  }
  return interrupted_ ? kExitBadInput : kExitNoBug;
}

}  // namespace ctrl
