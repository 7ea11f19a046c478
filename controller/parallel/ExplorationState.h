// --state DIR and --resume DIR (issue 28): a seeded exploration's frontier
// saved on disk, so that a run stopped by a limit, Ctrl-C or a dead rank
// (or killed with its machine) goes on from where it was.
//
// What is saved (protocol/work.proto's SavedExploration): the plan numbers
// counted, as a prefix 0..next_plan-1 (the explorer takes results in plan
// order whatever session or rank ran them, so the prefix is exactly what it
// counted), the counts of the report, what the strategy learnt
// (Strategy::saved_state), and what the exploration ran under (the visible
// sites and the shared set of own memory). Results that other sessions ran
// past the prefix are not saved: they are run again, never counted twice.
//
// Invariants: the file is replaced atomically (written beside it, synced,
// renamed), so a kill at any moment leaves the previous snapshot or the new
// one; a snapshot is taken between two executions, so its counts and its
// next_plan agree; a resume refuses (UsageError) a state of another program
// or other options (the identity), and one whose run had ended (a bug, an
// exhaustive search).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "work.pb.h"

namespace ctrl {

class ExplorationState {
 public:
  // Saves to `dir` (made when missing, owner-only); `identity`: what must
  // be the same for a resume. Throws UsageError when it cannot be made.
  ExplorationState(std::string dir, std::string identity);
  const std::string& identity() const { return identity_; }
  // Whether a periodic snapshot is due (every kPeriod).
  bool due() const { return std::chrono::steady_clock::now() - last_ >= kPeriod; }
  void save(proto::SavedExploration s);  // sets version and identity; throws UsageError

  // The state saved in `dir` for `identity`. Throws UsageError when there is
  // none, it is unreadable, of another run, or its run had ended.
  static proto::SavedExploration load(const std::string& dir, const std::string& identity);

  static constexpr std::chrono::milliseconds kPeriod{1000};
  static constexpr uint32_t kVersion = 1;

 private:
  std::string dir_, identity_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace ctrl
