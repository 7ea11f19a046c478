#include "reports/Verdict.h"

#include <fmt/format.h>

#include "exploration/Explorer.h"

namespace ctrl {

Unchecked unchecked(const ExplorationReport& r) {
  if (!r.bugs.empty()) return Unchecked::None;
  if (r.total == 0) return Unchecked::NothingEnded;
  if (r.no_thread) return Unchecked::NoThread;
  // `complete` counts the executions that ran to their end, bugs included;
  // the others were cut, abandoned as redundant with a cut one, or found
  // infeasible under the model: none of them got to the program's end,
  // where programs check their results.
  if (r.complete == 0) return r.bounded ? Unchecked::EveryCut : Unchecked::NothingEnded;
  return Unchecked::None;
}

const char* unchecked_keyword(Unchecked u) {
  switch (u) {
    case Unchecked::None:
      return "";
    case Unchecked::NothingEnded:
      return "none-ended";
    case Unchecked::EveryCut:
      return "every-execution-cut";
    case Unchecked::NoThread:
      return "no-thread";
  }
  return "";
}

bool unchecked_by_limits(const ExplorationReport& r) {
  Unchecked u = unchecked(r);
  return u == Unchecked::NothingEnded || u == Unchecked::EveryCut;
}

std::string unchecked_summary(const ExplorationReport& r) {
  std::string why = r.interrupted ? fmt::format(" (interrupted by {})", r.stopped_by) : "";
  switch (unchecked(r)) {
    case Unchecked::None:
      return "";
    case Unchecked::NothingEnded:
      // Not "0 bugs": no execution got anywhere, so nothing is known.
      return fmt::format("no execution completed: nothing was checked, {:.2f} s{}", r.elapsed, why);
    case Unchecked::EveryCut: {
      std::string steps = r.max_steps ? fmt::format(" {}", r.max_steps) : "";
      std::string others = r.total > r.bounded ? fmt::format(", {} blocked", r.total - r.bounded) : "";
      // Fewer visible operations is what makes a program whose every
      // access is a step (a Rust tool, an interpreter) fit; a larger bound
      // helps a long but finite one; a loop that never ends is a livelock.
      std::string try_this = r.visible == "atomics"
                                 ? fmt::format("try a larger --max-steps (at most 50000000)")
                                 : "try --visible atomics (fewer visible operations) or a larger --max-steps";
      return fmt::format(
          "{} execution{} ({} cut by --max-steps{}), 0 bugs: nothing was checked: every execution was cut by "
          "--max-steps{}, none ran to its end; {} (a thread that never stops, a livelock, is cut the same way), "
          "{:.2f} s{}",
          r.total, r.total == 1 ? "" : "s", r.bounded, others, steps, try_this, r.elapsed, why);
    }
    case Unchecked::NoThread:
      return fmt::format(
          "1 execution, 0 bugs: nothing to interleave: the program created no thread (ctrl checks the interleavings "
          "of threads; its one execution ran natively to its end{}; a program that chose one thread, such as an "
          "OpenMP build on one CPU, or that works in child processes gives ctrl nothing to explore), {:.2f} s{}",
          r.no_thread_status > 0 ? fmt::format(" with exit status {}", r.no_thread_status) : "", r.elapsed, why);
  }
  return "";
}

}  // namespace ctrl
