// --monitor sober off the exploration's critical path: the check of one
// execution runs on a worker thread while the next execution runs (the
// controller mostly waits for the target then, and the machine has a second
// CPU). Sober measured 4-6% for its monitor; run inline between executions
// ctrl's took 10-15% of a mutual-exclusion program's exploration.
//
// Invariants: at most one execution is being checked; wait() returns the
// verdict of the execution submit() was last given, exactly once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "SharedRegion.h"
#include "SoberMonitor.h"

namespace ctrl {

class BackgroundMonitor {
 public:
  BackgroundMonitor();
  ~BackgroundMonitor();
  BackgroundMonitor(const BackgroundMonitor&) = delete;
  BackgroundMonitor& operator=(const BackgroundMonitor&) = delete;

  // Starts checking `events`; the previous verdict must have been taken.
  void submit(const std::vector<shm::Event>& events);
  bool busy() const { return submitted_; }
  // The verdict of the submitted execution (waits for it). False, with the
  // check abandoned, when `stop` (polled every 100 ms) says so first.
  bool wait(std::optional<Borderline>& verdict, const std::function<bool()>& stop);

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<shm::Event> events_;
  std::optional<Borderline> verdict_;
  bool submitted_ = false;  // owned by the exploration thread
  bool pending_ = false;    // a check waits to run or runs
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  // the destructor abandons a check under way
  std::thread worker_;
};

}  // namespace ctrl
