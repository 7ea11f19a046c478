// C++20 synchronisation for the realworld suite: two workers meet at a
// std::barrier after each phase (its completion function sums the phase),
// take turns on a std::counting_semaphore, report to the main thread
// through a std::latch, and the main thread waits for a flag with
// std::atomic::wait. The printed totals do not depend on the schedule.
// Usage: cxx20_sync
#include <atomic>
#include <barrier>
#include <cstdio>
#include <latch>
#include <semaphore>
#include <thread>

int main() {
  constexpr int kPhases = 3;
  long phase_parts[2] = {0, 0};
  long phases_total = 0;
  auto complete = [&]() noexcept { phases_total += phase_parts[0] + phase_parts[1]; };
  std::barrier meet(2, complete);
  std::counting_semaphore<1> turn(1);
  long shared = 0;
  std::latch done(2);
  std::atomic<int> go{0};

  auto worker = [&](int me) {
    go.wait(0);  // until main says go
    for (int p = 1; p <= kPhases; ++p) {
      phase_parts[me] = p * (me + 1);
      meet.arrive_and_wait();
      turn.acquire();
      shared += p;
      turn.release();
    }
    done.count_down();
  };
  std::thread a(worker, 0), b(worker, 1);
  go.store(1);
  go.notify_all();
  done.wait();
  a.join();
  b.join();
  std::printf("phases %ld shared %ld\n", phases_total, shared);
  return 0;
}
