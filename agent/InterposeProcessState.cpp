// The program's calls that change process state a runner checks or puts
// back after an execution only when it may have changed (Rollback.h,
// note_change): the interval timers, the umask, the alternate signal
// stacks and the working directory (with libc's walkers that change it
// inside). Each is noted, then made as the program asked. Inside libc only
// gprof's functions set a timer (profil, sprofil, moncontrol, monstartup:
// the profiling timer): they are noted too. (A -pg program's start-up starts
// that timer before the checkpoint: the runner then checks the timers after
// every execution, Rollback.cpp.)
#include <dlfcn.h>
#include <fts.h>
#include <ftw.h>
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

int chdir(const char* path) {
  static auto* libc = next<decltype(&chdir)>("chdir");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(path);
}

int fchdir(int fd) {
  static auto* libc = next<decltype(&fchdir)>("fchdir");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fd);
}

int nftw(const char* dir, __nftw_func_t fn, int descriptors, int flags) {
  static auto* libc = next<decltype(&nftw)>("nftw");
  if (flags & FTW_CHDIR) rollback::note_change(rollback::kWorkingDirectory);
  return libc(dir, fn, descriptors, flags);
}

int nftw64(const char* dir, __nftw64_func_t fn, int descriptors, int flags) {
  static auto* libc = next<decltype(&nftw64)>("nftw64");
  if (flags & FTW_CHDIR) rollback::note_change(rollback::kWorkingDirectory);
  return libc(dir, fn, descriptors, flags);
}

// fts moves the working directory as it walks unless opened with
// FTS_NOCHDIR (and back at fts_close): every call that may is noted.
FTSENT* fts_read(FTS* fts) {
  static auto* libc = next<decltype(&fts_read)>("fts_read");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts);
}

FTSENT* fts_children(FTS* fts, int options) {
  static auto* libc = next<decltype(&fts_children)>("fts_children");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts, options);
}

int fts_close(FTS* fts) {
  static auto* libc = next<decltype(&fts_close)>("fts_close");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts);
}

// (A program built with _FILE_OFFSET_BITS=64 calls these.)
FTSENT64* fts64_read(FTS64* fts) {
  static auto* libc = next<decltype(&fts64_read)>("fts64_read");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts);
}

FTSENT64* fts64_children(FTS64* fts, int options) {
  static auto* libc = next<decltype(&fts64_children)>("fts64_children");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts, options);
}

int fts64_close(FTS64* fts) {
  static auto* libc = next<decltype(&fts64_close)>("fts64_close");
  rollback::note_change(rollback::kWorkingDirectory);
  return libc(fts);
}

}  // extern "C"
