// Virtual time (VirtualClock.h): the program's clock reads and sleeps.
#include "VirtualClock.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>

#include "RawSyscall.h"
#include "SharedRegion.h"

using namespace ctrl;
using namespace ctrl::agent;
using ctrl::agent::virtual_clock::kTickNs;

namespace {

constexpr int64_t kNsPerSecond = 1000000000;

enum State : int { kUnknown = 0, kOff, kOn };

// Agent memory: never rolled back, so start_execution puts `elapsed` back.
std::atomic<int> state{kUnknown};
int64_t realtime_origin = 0;
int64_t monotonic_origin = 0;
std::atomic<int64_t> elapsed{0};
int64_t elapsed_at_checkpoint = 0;

void init_from(int region_fd) {
  int64_t origin[2] = {0, 0};
  long n = raw_syscall(SYS_pread64, region_fd, reinterpret_cast<long>(origin), sizeof origin,
                       long(offsetof(shm::Header, clock_realtime_ns)));
  static_assert(offsetof(shm::Header, clock_monotonic_ns) == offsetof(shm::Header, clock_realtime_ns) + 8);
  if (n != long(sizeof origin) || origin[0] <= 0 || origin[1] <= 0) {
    state.store(kOff, std::memory_order_release);
    return;
  }
  realtime_origin = origin[0];
  monotonic_origin = origin[1];
  state.store(kOn, std::memory_order_release);
}

bool is_on() {
  int s = state.load(std::memory_order_acquire);
  if (s == kUnknown) {
    // A read from a library's constructor, before the agent's: the region
    // is still named in the environment.
    const char* fd = getenv("CTRL_REGION_FD");
    if (!fd) {
      state.store(kOff, std::memory_order_release);
      return false;
    }
    init_from(atoi(fd));
    s = state.load(std::memory_order_acquire);
  }
  return s == kOn;
}

// The origin of a virtual clock; false for a clock that stays real.
bool origin_of(clockid_t clock, int64_t* origin) {
  switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
      *origin = realtime_origin;
      return true;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
      *origin = monotonic_origin;
      return true;
    default:
      return false;
  }
}

int64_t tick() { return elapsed.fetch_add(kTickNs, std::memory_order_relaxed) + kTickNs; }

timespec to_timespec(int64_t ns) { return timespec{time_t(ns / kNsPerSecond), long(ns % kNsPerSecond)}; }

int64_t ns_of(const timespec& t) { return int64_t(t.tv_sec) * kNsPerSecond + t.tv_nsec; }

}  // namespace

namespace ctrl::agent::virtual_clock {

void init_from_region(int region_fd) {
  if (state.load(std::memory_order_acquire) == kUnknown) init_from(region_fd);
}

void checkpoint() { elapsed_at_checkpoint = elapsed.load(std::memory_order_relaxed); }

void start_execution() { elapsed.store(elapsed_at_checkpoint, std::memory_order_relaxed); }

void advance(int64_t ns) {
  if (ns > 0 && is_on()) elapsed.fetch_add(ns, std::memory_order_relaxed);
}

int64_t real_monotonic_ns() {
  timespec t{};
  raw_syscall(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&t));
  return ns_of(t);
}

int64_t read_monotonic_ns() { return is_on() ? monotonic_origin + tick() : real_monotonic_ns(); }

bool on() { return is_on(); }

bool origin(int64_t* realtime_ns, int64_t* monotonic_ns) {
  if (!is_on()) return false;
  *realtime_ns = realtime_origin;
  *monotonic_ns = monotonic_origin;
  return true;
}

bool answer_syscall(long number, const long* args, long* result) {
  if (!is_on()) return false;
  switch (number) {
    case SYS_clock_gettime:
      *result = clock_gettime(clockid_t(args[0]), reinterpret_cast<timespec*>(args[1]));
      return true;
    case SYS_gettimeofday:
      *result = gettimeofday(reinterpret_cast<timeval*>(args[0]), reinterpret_cast<struct timezone*>(args[1]));
      return true;
    case SYS_time:
      *result = long(time(reinterpret_cast<time_t*>(args[0])));
      return true;
    default:
      return false;
  }
}

}  // namespace ctrl::agent::virtual_clock

extern "C" {

int clock_gettime(clockid_t clock, timespec* ts) {
  int64_t origin = 0;
  if (!is_on() || !origin_of(clock, &origin)) {
    long r = raw_syscall(SYS_clock_gettime, clock, reinterpret_cast<long>(ts));
    if (r < 0) {
      errno = int(-r);
      return -1;
    }
    return 0;
  }
  *ts = to_timespec(origin + tick());
  return 0;
}

int gettimeofday(timeval* tv, void* tz) {
  if (!is_on()) {
    long r = raw_syscall(SYS_gettimeofday, reinterpret_cast<long>(tv), reinterpret_cast<long>(tz));
    if (r < 0) {
      errno = int(-r);
      return -1;
    }
    return 0;
  }
  // The time zone, obsolete, stays the kernel's.
  if (tz) raw_syscall(SYS_gettimeofday, 0, reinterpret_cast<long>(tz));
  // (libc declares `tv` non-null; the kernel accepts a null one.)
  timeval* out = tv;
  __asm__("" : "+r"(out));
  if (out) {
    int64_t ns = realtime_origin + tick();
    out->tv_sec = time_t(ns / kNsPerSecond);
    out->tv_usec = suseconds_t(ns % kNsPerSecond / 1000);
  }
  return 0;
}

time_t time(time_t* out) {
  time_t t = is_on() ? time_t((realtime_origin + tick()) / kNsPerSecond) : time_t(raw_syscall(SYS_time, 0));
  if (out) *out = t;
  return t;
}

int timespec_get(timespec* ts, int base) {
  if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) != 0) return 0;
  return base;
}

}  // extern "C"
