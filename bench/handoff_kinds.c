// What each way of handing the turn from one thread to another costs on
// this machine (issue 27, item 2): the kernel's hand-offs ctrl uses today
// (a futex wake and wait, or a yield, between two threads on one CPU), the
// same across two CPUs, a spin across two CPUs, and what a user-level
// switch of the program's thread would have to pay for its thread pointer
// (arch_prctl(ARCH_SET_FS), or wrfsbase where the kernel allows it). A
// plain system call is the unit.
//
//   bench_handoff_kinds [ROUND_TRIPS]   (nanoseconds per hand-off or call)
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

enum Wait { kFutex, kYield, kSpin };

static atomic_int turn;
static long rounds;
static enum Wait wait_kind;
static int peer_cpu;

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

static void wait_for(int value) {
  for (int seen; (seen = atomic_load(&turn)) != value;) {
    if (wait_kind == kFutex)
      syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    else if (wait_kind == kYield)
      sched_yield();
    else
      __builtin_ia32_pause();
  }
}

static void give(int value) {
  atomic_store(&turn, value);
  if (wait_kind == kFutex) syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void* peer(void* arg) {
  (void)arg;
  pin(peer_cpu);
  for (long i = 0; i < rounds; ++i) {
    wait_for(1);
    give(0);
  }
  return NULL;
}

// Nanoseconds per hand-off (two per round trip).
static double handoffs(enum Wait kind, int cpu, int other_cpu) {
  wait_kind = kind;
  peer_cpu = other_cpu;
  atomic_store(&turn, 0);
  pin(cpu);
  pthread_t t;
  if (pthread_create(&t, NULL, peer, NULL) != 0) exit(1);
  double start = now_ns();
  for (long i = 0; i < rounds; ++i) {
    give(1);
    wait_for(0);
  }
  double ns = (now_ns() - start) / (double)rounds / 2;
  pthread_join(t, NULL);
  return ns;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atol(argv[1]) : 100000;
  if (rounds <= 0) return 2;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return 2;
  int a = -1, b = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mine)) {
      if (a < 0)
        a = c;
      else if (b < 0)
        b = c;
    }
  double start = now_ns();
  for (long i = 0; i < rounds; ++i) syscall(SYS_getppid);
  printf("system call (getppid)           %7.0f ns\n", (now_ns() - start) / (double)rounds);
  printf("futex hand-off, one CPU         %7.0f ns\n", handoffs(kFutex, a, a));
  printf("yield hand-off, one CPU         %7.0f ns\n", handoffs(kYield, a, a));
  if (b >= 0) {
    printf("futex hand-off, two CPUs        %7.0f ns\n", handoffs(kFutex, a, b));
    printf("spin hand-off, two CPUs         %7.0f ns\n", handoffs(kSpin, a, b));
  } else {
    printf("(one CPU: no hand-off across CPUs)\n");
  }
  unsigned long fs = 0;
  syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
  start = now_ns();
  for (long i = 0; i < rounds; ++i) syscall(SYS_arch_prctl, ARCH_SET_FS, fs);
  printf("thread pointer, arch_prctl      %7.0f ns\n", (now_ns() - start) / (double)rounds);
  if (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) {
    start = now_ns();
    for (long i = 0; i < rounds; ++i) __asm__ volatile("wrfsbase %0" ::"r"(fs) : "memory");
    printf("thread pointer, wrfsbase        %7.0f ns\n", (now_ns() - start) / (double)rounds);
  } else {
    printf("thread pointer, wrfsbase        (the kernel does not allow it here)\n");
  }
  return 0;
}
