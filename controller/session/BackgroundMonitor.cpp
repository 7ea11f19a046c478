#include "session/BackgroundMonitor.h"

#include <chrono>

namespace ctrl {

BackgroundMonitor::BackgroundMonitor() : worker_([this] { work(); }) {}

BackgroundMonitor::~BackgroundMonitor() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  // A stop (Ctrl-C, the time limit) must not wait for the check of a long
  // execution; a verdict still wanted was taken with wait() before.
  cancel_ = true;
  changed_.notify_all();
  worker_.join();
}

void BackgroundMonitor::submit(const std::vector<shm::Event>& events) {
  {
    std::lock_guard lock(mutex_);
    events_ = events;
    verdict_.reset();
    pending_ = true;
  }
  submitted_ = true;
  changed_.notify_all();
}

bool BackgroundMonitor::wait(std::optional<Borderline>& verdict, const std::function<bool()>& stop) {
  std::unique_lock lock(mutex_);
  while (!changed_.wait_for(lock, std::chrono::milliseconds(100), [this] { return !pending_; })) {
    if (stop()) {
      cancel_ = true;  // the worker gives up; the destructor joins it
      return false;
    }
  }
  submitted_ = false;
  verdict = std::move(verdict_);
  return true;
}

void BackgroundMonitor::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || pending_; });
    if (stop_) return;
    // The events are not touched by the other thread until the verdict is in.
    lock.unlock();
    std::optional<Borderline> verdict = find_borderline(events_.data(), events_.size(), &cancel_);
    lock.lock();
    verdict_ = verdict;
    pending_ = false;
    changed_.notify_all();
  }
}

}  // namespace ctrl
