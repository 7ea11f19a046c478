#include "BackgroundMonitor.h"

namespace ctrl {

BackgroundMonitor::BackgroundMonitor() : worker_([this] { work(); }) {}

BackgroundMonitor::~BackgroundMonitor() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
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

std::optional<Borderline> BackgroundMonitor::wait() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !pending_; });
  submitted_ = false;
  return std::move(verdict_);
}

void BackgroundMonitor::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || pending_; });
    if (stop_) return;
    // The events are not touched by the other thread until the verdict is in.
    lock.unlock();
    std::optional<Borderline> verdict = find_borderline(events_.data(), events_.size());
    lock.lock();
    verdict_ = verdict;
    pending_ = false;
    changed_.notify_all();
  }
}

}  // namespace ctrl
