// std::thread's version of thread_rounds: 40 rounds of two std::threads,
// each joined (80 threads over time, at most three alive at once).
// std::thread creates, joins and detaches through pthread_create,
// pthread_join and pthread_detach, and libc gives the pthread_t of a joined
// thread, or of a finished detached one, to the next thread it creates:
// each join must find the thread the value names now.
//
// Only the last round's workers conflict (on the mutex): DPOR runs exactly
// 2 executions. With the argument "detach" a detached std::thread runs
// first (its state object, which it deletes itself, makes the count depend
// on libstdc++'s inlined code, so only the verdict is checked then).
#include <cassert>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

namespace {

constexpr int kRounds = 40;
int slot[kRounds][2];
int total;
std::mutex lock;

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "detach") == 0) std::thread([] {}).detach();
  for (int r = 0; r < kRounds; ++r) {
    std::thread workers[2];
    for (int i = 0; i < 2; ++i)
      workers[i] = std::thread([r, i] {
        slot[r][i] = r * 2 + i;
        if (r == kRounds - 1) {
          std::lock_guard<std::mutex> guard(lock);
          ++total;
        }
      });
    for (auto& w : workers) w.join();
  }
  long sum = 0;
  for (auto& s : slot) sum += s[0] + s[1];
  assert(sum == long(2 * kRounds) * (2 * kRounds - 1) / 2);
  assert(total == 2);
  std::printf("sum %ld, total %d\n", sum, total);
  return 0;
}
