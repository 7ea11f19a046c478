/* The time-stamp counter read in a shared library that is not instrumented
 * (tsc_lock_order's workers, built as tsc_lock_order_lib): ctrl decodes the
 * rdtsc of every library the program loads, libc's aside. */
#include <x86intrin.h>

unsigned long long tsc_read(void) { return __rdtsc(); }
