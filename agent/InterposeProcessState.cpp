// The program's calls that change process state a runner checks or puts
// back after an execution only when it may have changed (Rollback.h,
// note_change): the interval timers, the umask and the alternate signal
// stacks. Each is noted, then made as the program asked. Inside libc only
// gprof's functions set a timer (profil, sprofil, moncontrol, monstartup:
// the profiling timer): they are noted too. (A -pg program's start-up starts
// that timer before the checkpoint: the runner then checks the timers after
// every execution, Rollback.cpp.)
#include <dlfcn.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "Rollback.h"

using namespace ctrl::agent;

namespace {

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

int setitimer(__itimer_which_t which, const struct itimerval* value, struct itimerval* old) {
  static auto* libc = next<decltype(&setitimer)>("setitimer");
  rollback::note_change(rollback::kTimers);
  return libc(which, value, old);
}

unsigned alarm(unsigned seconds) {
  static auto* libc = next<decltype(&alarm)>("alarm");
  rollback::note_change(rollback::kTimers);
  return libc(seconds);
}

useconds_t ualarm(useconds_t value, useconds_t interval) {
  static auto* libc = next<decltype(&ualarm)>("ualarm");
  rollback::note_change(rollback::kTimers);
  return libc(value, interval);
}

int profil(unsigned short* buf, size_t size, size_t offset, unsigned scale) {
  static auto* libc = next<int (*)(unsigned short*, size_t, size_t, unsigned)>("profil");
  rollback::note_change(rollback::kTimers);
  return libc(buf, size, offset, scale);
}

struct prof;
int sprofil(struct prof* profs, int count, struct timeval* tv, unsigned flags) {
  static auto* libc = next<int (*)(struct prof*, int, struct timeval*, unsigned)>("sprofil");
  rollback::note_change(rollback::kTimers);
  return libc(profs, count, tv, flags);
}

void moncontrol(int mode) {
  static auto* libc = next<void (*)(int)>("moncontrol");
  rollback::note_change(rollback::kTimers);
  libc(mode);
}

void monstartup(unsigned long low, unsigned long high) {
  static auto* libc = next<void (*)(unsigned long, unsigned long)>("monstartup");
  rollback::note_change(rollback::kTimers);
  libc(low, high);
}

void __monstartup(unsigned long low, unsigned long high) {
  static auto* libc = next<void (*)(unsigned long, unsigned long)>("__monstartup");
  rollback::note_change(rollback::kTimers);
  libc(low, high);
}

mode_t umask(mode_t mask) {
  static auto* libc = next<decltype(&umask)>("umask");
  rollback::note_change(rollback::kUmask);
  return libc(mask);
}

int sigaltstack(const stack_t* stack, stack_t* old) {
  static auto* libc = next<decltype(&sigaltstack)>("sigaltstack");
  if (stack) rollback::note_change(rollback::kAlternateStack);
  return libc(stack, old);
}

}  // extern "C"
