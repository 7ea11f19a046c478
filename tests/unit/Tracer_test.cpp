// Tracer: a SIGCHLD read by another thread's Tracer still wakes the Tracer
// whose tracee stopped (session/Tracer.h). -j runs a session per thread, and
// SIGCHLD goes to the process: the explorer's Tracer, reading its signalfd
// between executions, took the helpers' and their waits slept out their polls.
#include "session/Tracer.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace ctrl {
namespace {

TEST(Tracer, AStopWakesItsTracerWhenAnotherReadTheSigchld) {
  // As in ctrl, no thread takes SIGCHLD as a signal: it waits in the
  // signalfds (the threads below inherit the mask).
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &chld, &old);

  std::atomic<bool> done{false}, thief_ready{false};
  // The other session's thread: reads its signalfd all the time, as the
  // explorer does between executions, so it takes most SIGCHLDs first.
  std::thread thief([&] {
    Tracer::set_helper_thread();
    Tracer other;
    thief_ready = true;
    while (!done) other.poll_signals();
  });
  while (!thief_ready) std::this_thread::yield();

  std::optional<Stop> exited;
  double waited_ms = 0;
  std::thread owner([&] {
    Tracer::set_helper_thread();
    Tracer tracer;
    LaunchSpec spec;
    spec.path = "/bin/sleep";
    spec.argv = {"/bin/sleep", "0.2"};
    pid_t pid = tracer.launch(spec);
    auto t0 = std::chrono::steady_clock::now();
    // The program stops (its exit) while this thread sleeps in wait().
    for (;;) {
      std::optional<Stop> s = tracer.wait(3000);
      if (!s) break;
      if (s->exited() && s->tid == pid) {
        exited = s;
        break;
      }
      tracer.resume(s->tid);
    }
    waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  });
  owner.join();
  done = true;
  thief.join();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);

  ASSERT_TRUE(exited.has_value()) << "the wait timed out: the other Tracer took the SIGCHLD and nothing woke this one";
  // sleep 0.2 and the stops around it: well under the 3 s a missed wake-up
  // would wait.
  EXPECT_LT(waited_ms, 2000);
}

}  // namespace
}  // namespace ctrl
