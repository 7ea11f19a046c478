// C++20 std::atomic::wait/notify_one: libstdc++ waits with a futex made
// through libc's syscall() (after a short spin). Correct: prints "woken 1".
#include <atomic>
#include <cstdio>
#include <thread>

static std::atomic<int> flag{0};

int main() {
  std::thread t([] {
    flag.wait(0);
    std::printf("woken %d\n", flag.load());
  });
  flag.store(1);
  flag.notify_one();
  t.join();
  return 0;
}
