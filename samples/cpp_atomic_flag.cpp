// Correct: message passing with a std::atomic<bool> flag (C++17).
//
// The producer writes a plain int, then sets `ready` with a release store;
// the consumer spins on an acquire load of `ready` and then reads the int,
// which must be the producer's value. On x86-64 both atomics are plain movs
// (built with ordinary flags: -O2, inline atomics). Under ctrl the consumer's
// spin re-reads an unchanged flag, so it waits for the producer's store
// instead of spinning: every execution ends, and none fails.
#include <atomic>
#include <cassert>
#include <cstdio>
#include <thread>

static std::atomic<bool> ready{false};
static int data;

int main() {
  std::thread consumer([] {
    while (!ready.load(std::memory_order_acquire)) {
    }
    assert(data == 42);
    std::printf("consumer got %d\n", data);
  });
  std::thread producer([] {
    data = 42;
    ready.store(true, std::memory_order_release);
  });
  producer.join();
  consumer.join();
  return 0;
}
