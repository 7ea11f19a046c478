// Buggy: a std::atomic<int> counter incremented with load + store (C++17).
//
// Each thread does `c.store(c.load() + 1)` instead of `c.fetch_add(1)`: both
// accesses are atomic, but the increment is not. If both threads load before
// either stores, one increment is lost and main's assertion fails. With the
// default seq_cst order GCC compiles the load to a mov and the store to an
// xchg, inline (ordinary flags, no libatomic).
#include <atomic>
#include <cassert>
#include <cstdio>
#include <thread>

static std::atomic<int> c{0};

static void increment() {
  c.store(c.load() + 1);  // should be c.fetch_add(1)
}

int main() {
  std::thread t1(increment);
  std::thread t2(increment);
  t1.join();
  t2.join();
  std::printf("c = %d\n", c.load());
  assert(c.load() == 2);
  return 0;
}
