#include "session/StopSignals.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

namespace ctrl {

namespace {

constexpr int kMaxFiles = 8;
constexpr int kMaxPath = 4096;
// Read by the handler: each slot's path is complete before `used` says so.
char paths[kMaxFiles][kMaxPath];
std::atomic<bool> used[kMaxFiles];
std::atomic<bool> taken{false};
bool ignored_int = false, ignored_term = false;
pthread_t main_thread;

void say(const char* text) { (void)!write(2, text, strlen(text)); }

void on_stop_signal(int sig) {
  if (taken.load()) {
    // Delivered to a thread that does not block it: the main thread's
    // signalfd reads it there.
    pthread_kill(main_thread, sig);
    return;
  }
  for (int i = 0; i < kMaxFiles; ++i)
    if (used[i].load()) unlink(paths[i]);
  say(sig == SIGINT ? "ctrl: stopped by SIGINT during start-up: nothing was checked\n"
                    : "ctrl: stopped by SIGTERM during start-up: nothing was checked\n");
  _exit(2);
}

}  // namespace

void install_stop_signals() {
  main_thread = pthread_self();
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) {
      (sig == SIGINT ? ignored_int : ignored_term) = true;
      continue;
    }
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, nullptr);
  }
}

void stop_signals_taken() {
  if (pthread_equal(pthread_self(), main_thread)) taken.store(true);
}

bool stop_signal_ignored(int sig) { return sig == SIGINT ? ignored_int : sig == SIGTERM ? ignored_term : false; }

void remove_on_stop(const char* path) {
  if (strlen(path) >= kMaxPath) return;
  for (int i = 0; i < kMaxFiles; ++i) {
    if (used[i].load()) continue;
    strcpy(paths[i], path);
    used[i].store(true);
    return;
  }
}

void forget_on_stop(const char* path) {
  for (int i = 0; i < kMaxFiles; ++i)
    if (used[i].load() && strcmp(paths[i], path) == 0) used[i].store(false);
}

}  // namespace ctrl
