// libc's entry points of the calls that may wait in the kernel for another
// thread (KernelWaits.h): each becomes its system call, modelled for a
// controlled thread in an execution; anything else goes to libc unchanged.
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "KernelWaits.h"
#include "PanicWatch.h"
#include "RealFunctions.h"
#include "Runtime.h"
#include "ThreadPool.h"
#include "VirtualThreadIds.h"

using namespace ctrl;
using namespace ctrl::agent;

#define SITE() CTRL_CALLER_SITE()

// libc's own function, resolved on first use.
#define REAL(name)                                                                        \
  static auto real_##name = reinterpret_cast<decltype(&::name)>(dlsym(RTLD_NEXT, #name)); \
  if (!real_##name) {                                                                     \
    errno = ENOSYS;                                                                       \
    return -1;                                                                            \
  }

namespace {

// The call as a system call, if modelled: true with the libc-style result
// (-1 and errno on failure) in `out`.
template <typename T>
bool modelled(long nr, std::initializer_list<long> args, uint64_t site, T& out) {
  long a[6] = {};
  size_t k = 0;
  for (long v : args) a[k++] = v;
  long r = 0;
  if (!modelled_syscall(nr, a, site, r)) return false;
  if (r < 0 && r > -4096) {
    errno = int(-r);
    out = T(-1);
  } else {
    out = T(r);
  }
  return true;
}

long L(const void* p) { return reinterpret_cast<long>(p); }

}  // namespace

extern "C" {

ssize_t read(int fd, void* buf, size_t n) {
  ssize_t r;
  if (modelled(SYS_read, {fd, L(buf), long(n)}, SITE(), r)) return r;
  REAL(read);
  return real_read(fd, buf, n);
}

ssize_t readv(int fd, const struct iovec* iov, int n) {
  ssize_t r;
  if (modelled(SYS_readv, {fd, L(iov), n}, SITE(), r)) return r;
  REAL(readv);
  return real_readv(fd, iov, n);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (fd == 2) panic_watch::on_stderr(buf, n);  // a Rust panic's message
  ssize_t r;
  if (modelled(SYS_write, {fd, L(buf), long(n)}, SITE(), r)) return r;
  REAL(write);
  return real_write(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec* iov, int n) {
  ssize_t r;
  if (modelled(SYS_writev, {fd, L(iov), n}, SITE(), r)) return r;
  REAL(writev);
  return real_writev(fd, iov, n);
}

ssize_t recv(int fd, void* buf, size_t n, int flags) {
  ssize_t r;
  if (modelled(SYS_recvfrom, {fd, L(buf), long(n), flags, 0, 0}, SITE(), r)) return r;
  REAL(recv);
  return real_recv(fd, buf, n, flags);
}

ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from, socklen_t* len) {
  ssize_t r;
  if (modelled(SYS_recvfrom, {fd, L(buf), long(n), flags, L(from), L(len)}, SITE(), r)) return r;
  REAL(recvfrom);
  return real_recvfrom(fd, buf, n, flags, from, len);
}

ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  ssize_t r;
  if (modelled(SYS_recvmsg, {fd, L(msg), flags}, SITE(), r)) return r;
  REAL(recvmsg);
  return real_recvmsg(fd, msg, flags);
}

ssize_t send(int fd, const void* buf, size_t n, int flags) {
  ssize_t r;
  if (modelled(SYS_sendto, {fd, L(buf), long(n), flags, 0, 0}, SITE(), r)) return r;
  REAL(send);
  return real_send(fd, buf, n, flags);
}

ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to, socklen_t len) {
  ssize_t r;
  if (modelled(SYS_sendto, {fd, L(buf), long(n), flags, L(to), long(len)}, SITE(), r)) return r;
  REAL(sendto);
  return real_sendto(fd, buf, n, flags, to, len);
}

ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  ssize_t r;
  if (modelled(SYS_sendmsg, {fd, L(msg), flags}, SITE(), r)) return r;
  REAL(sendmsg);
  return real_sendmsg(fd, msg, flags);
}

int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  int r;
  if (modelled(SYS_accept, {fd, L(addr), L(len)}, SITE(), r)) return r;
  REAL(accept);
  return real_accept(fd, addr, len);
}

int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  int r;
  if (modelled(SYS_accept4, {fd, L(addr), L(len), flags}, SITE(), r)) return r;
  REAL(accept4);
  return real_accept4(fd, addr, len, flags);
}

int poll(struct pollfd* fds, nfds_t n, int timeout) {
  int r;
  if (modelled(SYS_poll, {L(fds), long(n), timeout}, SITE(), r)) return r;
  REAL(poll);
  return real_poll(fds, n, timeout);
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* tsp, const sigset_t* mask) {
  int r;
  if (modelled(SYS_ppoll, {L(fds), long(n), L(tsp), L(mask), 8}, SITE(), r)) return r;
  REAL(ppoll);
  return real_ppoll(fds, n, tsp, mask);
}

int select(int n, fd_set* rd, fd_set* wr, fd_set* ex, struct timeval* tv) {
  int r;
  if (modelled(SYS_select, {n, L(rd), L(wr), L(ex), L(tv)}, SITE(), r)) return r;
  REAL(select);
  return real_select(n, rd, wr, ex, tv);
}

int pselect(int n, fd_set* rd, fd_set* wr, fd_set* ex, const struct timespec* ts, const sigset_t* mask) {
  int r;
  struct {
    const sigset_t* set;
    size_t size;
  } data{mask, 8};
  timespec copy{};
  if (ts) copy = *ts;  // the system call writes the time left
  if (modelled(SYS_pselect6, {n, L(rd), L(wr), L(ex), ts ? L(&copy) : 0, L(&data)}, SITE(), r)) return r;
  REAL(pselect);
  return real_pselect(n, rd, wr, ex, ts, mask);
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  int r;
  if (modelled(SYS_epoll_wait, {epfd, L(events), max, timeout}, SITE(), r)) return r;
  REAL(epoll_wait);
  return real_epoll_wait(epfd, events, max, timeout);
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  int r;
  if (modelled(SYS_epoll_pwait, {epfd, L(events), max, timeout, L(mask), 8}, SITE(), r)) return r;
  REAL(epoll_pwait);
  return real_epoll_pwait(epfd, events, max, timeout, mask);
}

int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* ts) {
  int r;
  if (modelled(SYS_rt_sigtimedwait, {L(set), L(info), L(ts), 8}, SITE(), r)) return r;
  REAL(sigtimedwait);
  return real_sigtimedwait(set, info, ts);
}

int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  int r;
  if (modelled(SYS_rt_sigtimedwait, {L(set), L(info), 0, 8}, SITE(), r)) return r;
  REAL(sigwaitinfo);
  return real_sigwaitinfo(set, info);
}

int sigwait(const sigset_t* set, int* sig) {
  int r;
  uint64_t site = SITE();
  // As libc: retried when interrupted; the error is returned, not in errno.
  for (;;) {
    if (!modelled(SYS_rt_sigtimedwait, {L(set), 0, 0, 8}, site, r)) break;
    if (r > 0) {
      *sig = r;
      return 0;
    }
    if (errno != EINTR) return errno;
  }
  static auto real_sigwait = reinterpret_cast<int (*)(const sigset_t*, int*)>(dlsym(RTLD_NEXT, "sigwait"));
  return real_sigwait ? real_sigwait(set, sig) : ENOSYS;
}

int sigsuspend(const sigset_t* mask) {
  int r;
  if (modelled(SYS_rt_sigsuspend, {L(mask), 8}, SITE(), r)) return r;
  REAL(sigsuspend);
  return real_sigsuspend(mask);
}

int pause() {
  int r;
  if (modelled(SYS_pause, {}, SITE(), r)) return r;
  REAL(pause);
  return real_pause();
}

pid_t wait4(pid_t pid, int* status, int options, struct rusage* usage) {
  pid_t r;
  if (modelled(SYS_wait4, {pid, L(status), options, L(usage)}, SITE(), r)) return r;
  REAL(wait4);
  return real_wait4(pid, status, options, usage);
}

pid_t waitpid(pid_t pid, int* status, int options) {
  pid_t r;
  if (modelled(SYS_wait4, {pid, L(status), options, 0}, SITE(), r)) return r;
  REAL(waitpid);
  return real_waitpid(pid, status, options);
}

pid_t wait(int* status) {
  pid_t r;
  if (modelled(SYS_wait4, {-1, L(status), 0, 0}, SITE(), r)) return r;
  REAL(wait);
  return real_wait(status);
}

int waitid(idtype_t type, id_t id, siginfo_t* info, int options) {
  int r;
  if (modelled(SYS_waitid, {long(type), long(id), L(info), options, 0}, SITE(), r)) return r;
  REAL(waitid);
  return real_waitid(type, id, info, options);
}

int kill(pid_t pid, int sig) {
  int r;
  if (modelled(SYS_kill, {pid, sig}, SITE(), r)) return r;
  REAL(kill);
  return real_kill(pid, sig);
}

int tgkill(pid_t tgid, pid_t tid, int sig) {
  tid = virtual_thread_ids::to_real(tid);  // (VirtualThreadIds.h)
  int r;
  if (modelled(SYS_tgkill, {tgid, tid, sig}, SITE(), r)) return r;
  REAL(tgkill);
  return real_tgkill(tgid, tid, sig);
}

int pthread_kill(pthread_t thread, int sig) {
  static auto real_pthread_kill = reinterpret_cast<int (*)(pthread_t, int)>(dlsym(RTLD_NEXT, "pthread_kill"));
  struct Args {
    pthread_t thread;
    int sig;
  } args{thread, sig};
  long r = 0;
  auto send = [](void* p) -> long {
    auto* a = static_cast<Args*>(p);
    // A pool's thread that ended is still there (ThreadPool.h): as libc
    // does for a thread that has exited, nothing is sent.
    uint32_t slot = thread_pool::slot_of(uint64_t(a->thread));
    if (slot != thread_pool::kNoSlot && thread_pool::ended(slot)) return 0;
    return real_pthread_kill(a->thread, a->sig);
  };
  if (send_signal_visibly(SITE(), sig, send, &args, r)) return int(r);
  return int(send(&args));
}

int raise(int sig) {
  static auto real_raise = reinterpret_cast<int (*)(int)>(dlsym(RTLD_NEXT, "raise"));
  long r = 0;
  auto send = [](void* p) -> long { return real_raise(*static_cast<int*>(p)); };
  if (send_signal_visibly(SITE(), sig, send, &sig, r)) return int(r);
  return real_raise(sig);
}

}  // extern "C"
