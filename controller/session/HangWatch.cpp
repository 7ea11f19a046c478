#include "session/HangWatch.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace ctrl {

namespace {

std::string task_file(pid_t pid, pid_t tid, const char* name) {
  return fmt::format("/proc/{}/task/{}/{}", pid, tid, name);
}

}  // namespace

std::optional<TaskTimes> read_task_times(pid_t pid, pid_t tid) {
  std::ifstream stat(task_file(pid, tid, "stat"));
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  // "tid (comm) S ppid ...": comm may hold spaces and parentheses.
  size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  TaskTimes t;
  std::string skip;
  fields >> t.state;
  for (int i = 4; i <= 13; ++i) fields >> skip;  // ppid .. cmajflt
  unsigned long long utime = 0, stime = 0;
  fields >> utime >> stime;
  if (!fields) return std::nullopt;
  static const double ticks = double(sysconf(_SC_CLK_TCK));
  t.cpu = double(utime + stime) / ticks;
  // Nanoseconds on a CPU and waiting for one, when the kernel keeps them.
  std::ifstream schedstat(task_file(pid, tid, "schedstat"));
  unsigned long long run_ns = 0, wait_ns = 0;
  if (schedstat >> run_ns >> wait_ns) {
    t.cpu = double(run_ns) * 1e-9;
    t.waited = double(wait_ns) * 1e-9;
  }
  return t;
}

std::string syscall_name(long number) {
  // The calls a thread can sleep in for long; others are named by number.
  switch (number) {
#define CTRL_SYSCALL(name) \
  case SYS_##name:         \
    return #name;
    CTRL_SYSCALL(read)
    CTRL_SYSCALL(write)
    CTRL_SYSCALL(readv)
    CTRL_SYSCALL(writev)
    CTRL_SYSCALL(pread64)
    CTRL_SYSCALL(pwrite64)
    CTRL_SYSCALL(preadv)
    CTRL_SYSCALL(pwritev)
    CTRL_SYSCALL(open)
    CTRL_SYSCALL(openat)
    CTRL_SYSCALL(close)
    CTRL_SYSCALL(ioctl)
    CTRL_SYSCALL(fcntl)
    CTRL_SYSCALL(flock)
    CTRL_SYSCALL(fsync)
    CTRL_SYSCALL(fdatasync)
    CTRL_SYSCALL(sync)
    CTRL_SYSCALL(poll)
    CTRL_SYSCALL(ppoll)
    CTRL_SYSCALL(select)
    CTRL_SYSCALL(pselect6)
    CTRL_SYSCALL(epoll_wait)
    CTRL_SYSCALL(epoll_pwait)
    CTRL_SYSCALL(nanosleep)
    CTRL_SYSCALL(clock_nanosleep)
    CTRL_SYSCALL(pause)
    CTRL_SYSCALL(futex)
    CTRL_SYSCALL(wait4)
    CTRL_SYSCALL(waitid)
    CTRL_SYSCALL(accept)
    CTRL_SYSCALL(accept4)
    CTRL_SYSCALL(connect)
    CTRL_SYSCALL(recvfrom)
    CTRL_SYSCALL(recvmsg)
    CTRL_SYSCALL(recvmmsg)
    CTRL_SYSCALL(sendto)
    CTRL_SYSCALL(sendmsg)
    CTRL_SYSCALL(sendmmsg)
    CTRL_SYSCALL(rt_sigsuspend)
    CTRL_SYSCALL(rt_sigtimedwait)
    CTRL_SYSCALL(msgrcv)
    CTRL_SYSCALL(msgsnd)
    CTRL_SYSCALL(semop)
    CTRL_SYSCALL(semtimedop)
    CTRL_SYSCALL(mq_timedreceive)
    CTRL_SYSCALL(mq_timedsend)
    CTRL_SYSCALL(io_getevents)
    CTRL_SYSCALL(io_uring_enter)
    CTRL_SYSCALL(splice)
    CTRL_SYSCALL(sendfile)
    CTRL_SYSCALL(copy_file_range)
    CTRL_SYSCALL(sched_yield)
    CTRL_SYSCALL(execve)
    CTRL_SYSCALL(exit_group)
    CTRL_SYSCALL(mmap)
    CTRL_SYSCALL(munmap)
#undef CTRL_SYSCALL
    default:
      return fmt::format("system call {}", number);
  }
}

std::string blocking_call(pid_t pid, pid_t tid) {
  // "NR arg1 ... arg6 sp pc" while in a system call; "running" or "-1 sp pc"
  // otherwise.
  std::ifstream in(task_file(pid, tid, "syscall"));
  std::string nr, arg;
  if (!(in >> nr) || nr == "running" || nr == "-1") return "";
  char* end = nullptr;
  long number = std::strtol(nr.c_str(), &end, 10);
  if (*end) return "";
  std::string call = syscall_name(number);
  if (in >> arg) {
    unsigned long long first = std::strtoull(arg.c_str(), nullptr, 16);
    call += first < 4096 ? fmt::format("({}, ...)", first) : fmt::format("({:#x}, ...)", first);
  }
  return call;
}

void HangWatch::restart(pid_t pid, uint32_t thread, pid_t tid, uint64_t steps) {
  started_ = true;
  pid_ = pid;
  tid_ = tid;
  thread_ = thread;
  steps_ = steps;
  since_ = clock::now();
  base_known_ = false;
}

std::optional<std::string> HangWatch::check(pid_t pid, uint32_t thread, pid_t tid, uint64_t steps) {
  if (!started_ || pid != pid_ || tid != tid_ || thread != thread_ || steps != steps_) {
    restart(pid, thread, tid, steps);
    return std::nullopt;
  }
  // The first reading waits a while: most executions end within
  // microseconds, and each /proc read costs the controller and the kernel
  // far more than that (its dentries are reaped when the thread exits).
  if (!base_known_) {
    if (clock::now() - since_ < kFirstReading) return std::nullopt;
    base_ = read_task_times(pid, tid).value_or(TaskTimes{});
    since_ = clock::now();
    base_known_ = true;
    return std::nullopt;
  }
  auto now = read_task_times(pid, tid);
  if (!now) return std::nullopt;  // gone: an exit or a new thread comes next
  double cpu = now->cpu - base_.cpu;
  if (cpu >= timeout_)
    return fmt::format("T{} used {:g} s of CPU time without reaching a visible operation", thread, timeout_);
  double wall = std::chrono::duration<double>(clock::now() - since_).count();
  double asleep = wall - cpu - (now->waited - base_.waited);
  if (asleep < timeout_) return std::nullopt;
  if (now->state == 'S' || now->state == 'D') {
    std::string call = blocking_call(pid, tid);
    return fmt::format(
        "T{} blocked in the kernel{} for {:g} s without reaching a visible operation: it waits for something "
        "outside the program",
        thread, call.empty() ? "" : " in " + call, timeout_);
  }
  if (now->state == 'T' || now->state == 't')
    return fmt::format("T{} stopped by a signal for {:g} s without reaching a visible operation", thread, timeout_);
  return std::nullopt;
}

}  // namespace ctrl
