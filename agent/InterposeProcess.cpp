// Process-level entry points: main's return and exit (the execution's last
// step), assertion failures and abort (bugs the agent reports itself),
// sleeps and yields (scheduling points that do not sleep), fork (in an
// execution the child runs uncontrolled; before the checkpoint it may become
// the fork server), daemon, and exec (refused: ctrl cannot follow a new
// image).
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "CheckpointClaim.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"
#include "VirtualClock.h"
#include "VirtualTsc.h"

using namespace ctrl;
using namespace ctrl::agent;

#define SITE() CTRL_CALLER_SITE()

namespace {

int (*program_main)(int, char**, char**);

int main_wrapper(int argc, char** argv, char** envp) {
  int status = program_main(argc, argv, envp);
  if (rt.controlled()) rt.process_exit(t_me, status, reinterpret_cast<uint64_t>(program_main));
  return status;
}

void yield_point(uint64_t site) {
  uint32_t me = t_me;
  PendingOp op{OpKind::Yield, 0, 0, site};
  op.drains = false;
  rt.begin(me, op);
  rt.log(me, OpKind::Yield, 0, site);
}

[[noreturn]] void refuse_exec(uint64_t site, const char* path) {
  char msg[512];
  snprintf(msg, sizeof msg, "the program executes '%s' (execve): ctrl cannot follow a program into a new image",
           path ? path : "?");
  rt.end_execution(shm::Outcome::Unsupported, t_me, site, msg);
}

// The new image's dynamic loader reads the TSC before any handler exists
// (VirtualTsc.h); a failed exec goes back to trapping.
template <typename F>
int exec_with_tsc(F&& exec) {
  virtual_tsc::readable_in_this_thread();
  int r = exec();
  int e = errno;
  virtual_tsc::trapped_in_this_thread();
  errno = e;
  return r;
}

bool exec_refused() {
  if (!rt.enabled || t_in_agent || t_me == kNoThread) return false;
  if (rt.checkpointed || !forked_child()) return true;
  // A child forked before the checkpoint that executes another program
  // (a helper) lets go of ctrl, as a child of an execution does.
  rt.enabled = false;
  real.close(rt.control_fd);
  rt.control_fd = -1;
  return false;
}

}  // namespace

extern "C" {

int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*init)(), void (*fini)(),
                      void (*rtld_fini)(), void* stack_end) {
  ensure_real();
  program_main = main;
  return real.libc_start_main(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}

void exit(int status) {
  ensure_real();
  if (rt.controlled()) rt.process_exit(t_me, status, SITE());
  real.exit(status);
}

void _exit(int status) {
  ensure_real();
  if (rt.controlled()) rt.process_exit(t_me, status, SITE());
  real._exit(status);
}

void _Exit(int status) {
  ensure_real();
  if (rt.controlled()) rt.process_exit(t_me, status, SITE());
  real._exit(status);
}

void __assert_fail(const char* assertion, const char* file, unsigned line, const char* function) {
  ensure_real();
  if (rt.enabled && t_me != kNoThread && !t_in_agent && !rt.ended) {
    char msg[shm::kMessageSize];
    snprintf(msg, sizeof msg, "%s:%u: %s: Assertion `%s' failed.", file, line, function ? function : "?", assertion);
    rt.end_execution(shm::Outcome::Assertion, t_me, SITE(), msg);
  }
  real.assert_fail(assertion, file, line, function);
}

void abort() {
  ensure_real();
  if (rt.enabled && t_me != kNoThread && !t_in_agent && !rt.ended) {
    // A sanitizer aborts after its report (SanitizerRuntime.h): the report is the bug.
    char report[shm::kMessageSize];
    if (sanitizer::present() && sanitizer::report(report, sizeof report) > 0)
      rt.end_execution(shm::Outcome::Sanitizer, t_me, SITE(), report);
    rt.end_execution(shm::Outcome::Abort, t_me, SITE(), "abort() called");
  }
  real.abort();
}

int sched_yield() {
  ensure_real();
  if (!rt.controlled() || !rt.active) return real.sched_yield();
  yield_point(SITE());
  return 0;
}

// libc's pthread_yield and thrd_yield call its internal sched_yield, which
// the interposer above does not see. (pthread.h redirects pthread_yield to
// sched_yield in programs built now: the symbol is for older binaries.)
int ctrl_pthread_yield() __asm__("pthread_yield");
int ctrl_pthread_yield() {
  ensure_real();
  if (!rt.controlled() || !rt.active) return real.sched_yield();
  yield_point(SITE());
  return 0;
}

void thrd_yield() {
  ensure_real();
  if (!rt.controlled() || !rt.active) {
    real.sched_yield();
    return;
  }
  yield_point(SITE());
}

int usleep(useconds_t us) {
  ensure_real();
  virtual_clock::advance(int64_t(us) * 1000);
  if (!rt.controlled() || !rt.active) return real.usleep(us);
  yield_point(SITE());
  return 0;
}

unsigned sleep(unsigned s) {
  ensure_real();
  virtual_clock::advance(int64_t(s) * 1000000000);
  if (!rt.controlled() || !rt.active) return real.sleep(s);
  yield_point(SITE());
  return 0;
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  ensure_real();
  if (req) virtual_clock::advance(int64_t(req->tv_sec) * 1000000000 + req->tv_nsec);
  if (!rt.controlled() || !rt.active) return real.nanosleep(req, rem);
  yield_point(SITE());
  return 0;
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec* req, struct timespec* rem) {
  ensure_real();
  if (req) {
    int64_t ns = int64_t(req->tv_sec) * 1000000000 + req->tv_nsec;
    timespec now{};
    // An absolute time: the time left until it on the clock the program reads.
    if (flags & TIMER_ABSTIME && clock_gettime(clock, &now) == 0) ns -= int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
    virtual_clock::advance(ns);
  }
  if (!rt.controlled() || !rt.active) return real.clock_nanosleep(clock, flags, req, rem);
  yield_point(SITE());
  return 0;
}

pid_t fork() {
  ensure_real();
  if (!rt.enabled || t_in_agent) return real.fork();
  // Before the checkpoint both processes keep the agent: whichever first
  // creates a thread becomes the fork server (daemons, and programs whose
  // work runs in a child while the parent waits or exits). The controller
  // traces both already (TRACEFORK, EXITKILL).
  if (!rt.checkpointed && prepare_checkpoint_claim()) {
    pid_t child = real.fork();
    if (child == 0) note_forked_child();
    return child;
  }
  rollback::note_change(rollback::kStatusFlags);
  pid_t child = real.fork();
  if (child == 0) {
    // The child is a separate, unserialised process: its agent lets go of
    // the controller's channel and region, and it reads the real TSC.
    rt.enabled = false;
    virtual_tsc::real_in_this_process();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (rt.control_fd >= 0) close(rt.control_fd);
    rt.control_fd = -1;
  }
  return child;
}

// libc's daemon() forks internally, past the interposed fork(): the same
// steps (daemon(3)) through it, so the child is followed.
int daemon(int nochdir, int noclose) {
  ensure_real();
  if (!rt.enabled) {
    static auto* libc_daemon = reinterpret_cast<int (*)(int, int)>(dlsym(RTLD_NEXT, "daemon"));
    return libc_daemon(nochdir, noclose);
  }
  pid_t child = fork();
  if (child < 0) return -1;
  if (child > 0) real._exit(0);
  if (setsid() < 0) return -1;
  if (!nochdir && chdir("/") != 0) return -1;
  if (!noclose) {
    int null = open("/dev/null", O_RDWR);
    if (null < 0) return -1;
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
    if (null > 2) close(null);
  }
  return 0;
}

int execve(const char* path, char* const argv[], char* const envp[]) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), path);
  return exec_with_tsc([&] { return real.execve(path, argv, envp); });
}

int execv(const char* path, char* const argv[]) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), path);
  return exec_with_tsc([&] { return real.execv(path, argv); });
}

int execvp(const char* file, char* const argv[]) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), file);
  return exec_with_tsc([&] { return real.execvp(file, argv); });
}

int execvpe(const char* file, char* const argv[], char* const envp[]) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), file);
  return exec_with_tsc([&] { return real.execvpe(file, argv, envp); });
}

namespace {
std::vector<char*> collect_args(const char* arg0, va_list ap, char*** envp) {
  std::vector<char*> args{const_cast<char*>(arg0)};
  while (char* a = va_arg(ap, char*)) args.push_back(a);
  args.push_back(nullptr);
  if (envp) *envp = va_arg(ap, char**);
  return args;
}
}  // namespace

int execl(const char* path, const char* arg, ...) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), path);
  va_list ap;
  va_start(ap, arg);
  auto args = collect_args(arg, ap, nullptr);
  va_end(ap);
  return exec_with_tsc([&] { return real.execv(path, args.data()); });
}

int execlp(const char* file, const char* arg, ...) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), file);
  va_list ap;
  va_start(ap, arg);
  auto args = collect_args(arg, ap, nullptr);
  va_end(ap);
  return exec_with_tsc([&] { return real.execvp(file, args.data()); });
}

int execle(const char* path, const char* arg, ...) {
  ensure_real();
  if (exec_refused()) refuse_exec(SITE(), path);
  va_list ap;
  va_start(ap, arg);
  char** envp = nullptr;
  auto args = collect_args(arg, ap, &envp);
  va_end(ap);
  return exec_with_tsc([&] { return real.execve(path, args.data(), envp); });
}

}  // extern "C"
