// Tracer: a SIGCHLD read by another thread's Tracer still wakes the Tracer
// whose tracee stopped (session/Tracer.h). -j runs a session per thread, and
// SIGCHLD goes to the process: the explorer's Tracer, reading its signalfd
// between executions, took the helpers' and their waits slept out their polls.
#include "session/Tracer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

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

TEST(Tracer, AZombieIsSeenAsOne) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  EXPECT_FALSE(is_zombie(child));
  kill(child, SIGKILL);
  // Dead, not yet waited for: a zombie until the waitpid below.
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);
  EXPECT_TRUE(is_zombie(child));
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(is_zombie(child)) << "a reaped process";
}

TEST(Tracer, ATraceeOfAnotherThreadOfCtrlIsNotTracedByAnother) {
  // With -j a helper session's thread traces its own program: to the other
  // threads (and to the tracer thread itself) that process is ctrl's, not
  // another tracer's (traced_by_other once compared with getpid(), the
  // main thread's id).
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  bool seized = false, other_in_tracer = true;
  std::thread tracer([&] {
    seized = ptrace(PTRACE_SEIZE, child, nullptr, PTRACE_O_EXITKILL) == 0;
    other_in_tracer = traced_by_other(child);
    // Kill and reap here: a tracee's exit is its tracer thread's to wait.
    kill(child, SIGKILL);
    waitpid(child, nullptr, __WALL | __WNOTHREAD);
  });
  tracer.join();
  ASSERT_TRUE(seized);
  EXPECT_FALSE(other_in_tracer);
  waitpid(child, nullptr, WNOHANG);
}

TEST(Tracer, AProcessTracedByAnotherProcessIsTracedByAnother) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    char c = ptrace(PTRACE_SEIZE, child, nullptr, nullptr) == 0 ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  close(ready[1]);
  bool traced = traced_by_other(child);
  kill(other, SIGKILL);
  waitpid(other, nullptr, 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  if (c != 'y') GTEST_SKIP() << "ptrace between siblings is not allowed here (Yama ptrace_scope)";
  EXPECT_TRUE(traced);
}

TEST(Tracer, AStopAskedBetweenTwoPollsIsSeenWithinTheInterval) {
  // poll_signals reads the signal descriptor at most once per interval; a
  // stop that came meanwhile must still be seen once the interval is over.
  bool seen_after = false;
  std::thread helper([&] {
    Tracer::set_helper_thread();
    Tracer tracer;
    EXPECT_FALSE(tracer.poll_signals());
    pthread_kill(pthread_self(), Tracer::kStopSignal);
    tracer.poll_signals();  // too soon, or not: either is right
    std::this_thread::sleep_for(2 * Tracer::kSignalPollInterval);
    seen_after = tracer.poll_signals();
    EXPECT_EQ(tracer.interrupted_by(), Tracer::kStopSignal);
  });
  helper.join();
  EXPECT_TRUE(seen_after);
}

}  // namespace
}  // namespace ctrl
