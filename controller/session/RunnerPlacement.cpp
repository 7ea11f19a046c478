// Where the runner and the session's thread run. Executions in place hand
// the turn between the runner and the controller at every execution, and a
// wake-up on the same CPU is much cheaper than one across CPUs, so both are
// pinned to one CPU once the checkpoint is reached (never before: the
// program's start-up sees the affinity ctrl had; never with runner_cpu -1).
// usable_cpus() is first read before any pin, so it keeps naming every CPU
// ctrl may use.
#include <sched.h>

#include "session/Session.h"

namespace ctrl {

const std::vector<int>& Session::usable_cpus() {
  static const std::vector<int> cpus = [] {
    std::vector<int> list;
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) list.push_back(c);
    return list;
  }();
  return cpus;
}

void Session::place_runner() {
  // After the launch: the program's start-up sees the affinity ctrl had.
  usable_cpus();
  cpu_set_t mask;
  if (!config_.in_place || config_.runner_cpu == -1 || sched_getaffinity(0, sizeof mask, &mask) != 0) return;
  // A helper session's thread inherited its creator's pin: any usable CPU.
  for (int c : usable_cpus()) CPU_SET(c, &mask);
  // Where this thread runs now: two ctrl running side by side (a test
  // suite) then tend to take different CPUs.
  int cpu = config_.runner_cpu >= 0 ? config_.runner_cpu : sched_getcpu();
  if (cpu < 0 || !CPU_ISSET(cpu, &mask)) return;
  runner_cpu_ = cpu;
  // This thread joins it: the runner and the controller hand the turn to
  // each other at every execution, and a wake-up on the same CPU costs a
  // tenth of one across CPUs on this project's machines (spinning instead
  // is worse still in a virtual machine).
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  sched_setaffinity(0, sizeof one, &one);
}

void Session::unpin_for_launch() {
  // A session after another in the same ctrl (--visible auto's fall-back
  // to atomics) launched its program from a thread the first had pinned to
  // one CPU: Go's runtime, which reads its affinity by system call at its
  // start, chose GOMAXPROCS 1 where the replay of the trace, a new ctrl,
  // chose 2, and every replay diverged (issue 22, item 11).
  const std::vector<int>& cpus = usable_cpus();
  if (cpus.empty()) return;
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c : cpus) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof all, &all);
}

}  // namespace ctrl
