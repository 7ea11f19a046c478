#include "AgentDescriptors.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include <utility>

#include "RealFunctions.h"
#include "Runtime.h"

namespace ctrl::agent {

namespace {

constexpr int kMaxSlots = 8;
int* slots[kMaxSlots];
int nslots = 0;
// hold_descriptors' array.
int* array_first = nullptr;
unsigned array_stride = 0;
const int* array_count = nullptr;
int array_size() { return array_count ? *array_count : 0; }
int* array_slot(int i) {
  return reinterpret_cast<int*>(reinterpret_cast<char*>(array_first) + size_t(i) * array_stride);
}
// Where a moved descriptor goes: above the fixed numbers ctrl gives the
// target (900-902), where programs rarely look.
constexpr int kMoveFloor = 903;

// The program's calls only: the agent's own go straight through.
bool guarding() { return rt.enabled && !t_in_agent; }

int* slot_of(int fd) {
  if (fd < 0) return nullptr;
  if (rt.control_fd == fd) return &rt.control_fd;
  for (int i = 0; i < nslots; ++i)
    if (*slots[i] == fd) return slots[i];
  for (int i = 0, n = array_size(); i < n; ++i)
    if (*array_slot(i) == fd) return array_slot(i);
  return nullptr;
}

}  // namespace

void hold_descriptor(int* slot) {
  if (nslots < kMaxSlots) slots[nslots++] = slot;
}

void hold_descriptors(int* first, unsigned stride, const int* count) {
  array_first = first;
  array_stride = stride;
  array_count = count;
}

bool holds_descriptor(int fd) { return slot_of(fd) != nullptr; }

bool agent_descriptor(int fd) { return guarding() && slot_of(fd) != nullptr; }

bool move_agent_descriptor(int fd) {
  int* slot = slot_of(fd);
  if (!slot) return true;
  int moved = real.fcntl(fd, F_DUPFD_CLOEXEC, kMoveFloor);
  if (moved < 0) return false;
  real.close(fd);
  *slot = moved;
  return true;
}

int raw_close_range(unsigned first, unsigned last, int flags) {
  return real.close_range ? real.close_range(first, last, flags)
                          : int(real.syscall(SYS_close_range, first, last, flags));
}

int close_range_around_agent(unsigned first, unsigned last, int flags) {
  if (!guarding()) return raw_close_range(first, last, flags);
  if (first > last) {
    errno = EINVAL;
    return -1;
  }
  // The agent's descriptors in the range, ascending; the pieces between
  // them are closed (CLOSE_RANGE_UNSHARE applies to the first call only:
  // later ones act on the already unshared table).
  constexpr int kMaxHeld = kMaxSlots + 1 + 1024;
  int held[kMaxHeld];
  int n = 0;
  for (int i = -1; i < nslots + array_size() && n < kMaxHeld; ++i) {
    int fd = i < 0 ? rt.control_fd : i < nslots ? *slots[i] : *array_slot(i - nslots);
    if (fd >= 0 && unsigned(fd) >= first && unsigned(fd) <= last) held[n++] = fd;
  }
  for (int i = 1; i < n; ++i)  // ascending (a handful; the array's are)
    for (int k = i; k > 0 && held[k - 1] > held[k]; --k) std::swap(held[k - 1], held[k]);
  unsigned from = first;
  for (int i = 0; i < n; ++i) {
    unsigned h = unsigned(held[i]);
    if (h < from) continue;  // the same descriptor in two slots
    if (h > from) {
      if (raw_close_range(from, h - 1, flags) != 0) return -1;
      flags &= ~CLOSE_RANGE_UNSHARE;
    }
    from = h + 1;
  }
  if (from <= last && raw_close_range(from, last, flags) != 0) return -1;
  return 0;
}

bool descriptor_syscall(long number, const long* a, long* result) {
  if (!guarding()) return false;
  switch (number) {
    case SYS_close:
      if (!slot_of(int(a[0]))) return false;
      errno = EBADF;
      *result = -1;
      return true;
    case SYS_close_range:
      *result = close_range_around_agent(unsigned(a[0]), unsigned(a[1]), int(a[2]));
      return true;
    case SYS_dup2:
    case SYS_dup3:
      if (slot_of(int(a[0]))) {
        errno = EBADF;
        *result = -1;
        return true;
      }
      if (!move_agent_descriptor(int(a[1]))) {
        errno = EMFILE;
        *result = -1;
        return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace ctrl::agent
