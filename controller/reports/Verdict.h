// What a run may claim about the program (issue 22, item 3): whether it
// checked any interleaving at all, and if not, why and what to try. The
// summary line, the JSON report (`checked`, `unchecked_reason`) and the exit
// status all come from here, so that they never disagree.
//
// Invariants:
//  * A run that found a bug has checked something.
//  * A run that checked nothing is never called exhaustive.
//  * Exit status: a run that checked nothing because of its limits (no
//    execution ran to its end: stopped during the first, or every one cut
//    by --max-steps) exits 2, as any input the options do not fit; a
//    program that created no thread exits 0: it is a legitimate input,
//    its one execution ran to its end natively and was checked for what a
//    single thread can hit (a crash, an abort, --fail-on-exit), there was
//    only nothing to interleave.
#pragma once

#include <string>

namespace ctrl {

struct ExplorationReport;

enum class Unchecked {
  None,          // some execution ran to its end with threads to interleave
  NothingEnded,  // stopped (time limit, Ctrl-C, SIGTERM) before any execution ended
  EveryCut,      // every execution was cut by --max-steps (or abandoned): none reached its end
  NoThread,      // the program ended before it created any thread
};

Unchecked unchecked(const ExplorationReport& report);
// The JSON `unchecked_reason` keyword ("none-ended", "every-execution-cut",
// "no-thread"); empty for Unchecked::None.
const char* unchecked_keyword(Unchecked u);
// The summary line of a run that checked nothing (why, and what to try);
// empty for Unchecked::None.
std::string unchecked_summary(const ExplorationReport& report);
// The run checked nothing because its limits did not fit the program: exit 2.
bool unchecked_by_limits(const ExplorationReport& report);

}  // namespace ctrl
