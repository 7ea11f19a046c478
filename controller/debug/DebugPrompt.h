// The stepping session's command line: `ctrl replay --interactive` and
// `ctrl attach --interactive`. Reads commands from the terminal (line
// editing and history by libedit) or, as gdb does, from a --batch file or a
// standard input that is not a terminal, and prints line-oriented answers
// that scripts and tests can rely on.
//
// Invariants:
//  - A command that fails prints one line starting with "error: " and the
//    session goes on; in batch mode the run then ends with exit status 2.
//  - Every step performed prints the bug report's interleaving line.
#pragma once

#include <cstdio>
#include <istream>
#include <memory>
#include <optional>
#include <string>

#include "debug/VariablePrinter.h"

namespace ctrl {

class DebugSession;
class MemoryExaminer;
class VariablePrinter;

class DebugPrompt {
 public:
  DebugPrompt(DebugSession& session, std::FILE* out);
  ~DebugPrompt();

  // Runs commands until `quit` or the end of the input: from `script` when
  // given, else from the terminal (or standard input when it is not one).
  // Returns ctrl's exit status: 0, or 2 when a batch command failed.
  int run(std::istream* script);
  // One command line. False after `quit`.
  bool execute(const std::string& line);

 private:
  void where();  // the position and what comes next
  void show_stop(const struct StopInfo& stop);
  VariablePrinter& printer();
  // The thread a command without one is about: the one that runs next.
  uint32_t current_thread();
  // `thread`'s innermost program frame, for names of locals (print, watch).
  std::optional<FrameContext> frame_of(uint32_t thread);

  DebugSession& session_;
  std::FILE* out_;
  bool failed_ = false;
  bool interrupted_ = false;  // Ctrl-C or SIGTERM: the session ends
  // Commands from a --batch script: no one is at a prompt for the session to
  // go on for after a Ctrl-C, so it ends (as gdb -batch's script does).
  // Commands on a pipe are a prompt's (a front end types them).
  bool batch_ = true;
  // One printer serves every execution: all are forked from one image.
  std::unique_ptr<VariablePrinter> printer_;
  std::unique_ptr<MemoryExaminer> examiner_;
  uint32_t examined_thread_ = 0;  // whose thread-locals x resolves
};

}  // namespace ctrl
