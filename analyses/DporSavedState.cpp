// Source-DPOR's side of --state/--resume (controller/parallel/
// ExplorationState.h): the strategy between two executions as numbers, and
// back. What a source-DPOR search still has to explore is its stack (per
// state of the latest execution: what ran, the backtrack, done and sleep
// sets and the steps tried there), so the stack is the saved frontier; the
// analysis tables are rebuilt by every completed() and are not saved.
//
// Layout (64-bit words): kMagic, then the scalars, the fixed prefix, the
// flush actors' owners, and per position its masks and its event, sleep set
// and tried steps as the bytes of those plain structs (the same ctrl build
// reads them back: ExplorationState's identity names the program, not the
// build, so a layout change is caught by the sizes written beside them).
#include <cstring>
#include <type_traits>

#include "DporStrategy.h"

namespace ctrl {

namespace {

constexpr uint64_t kMagic = 0x64706f7273746174;  // "dporstat"

class Writer {
 public:
  explicit Writer(std::vector<uint64_t>& out) : out_(out) {}
  void word(uint64_t v) { out_.push_back(v); }
  template <typename T>
  void pods(const T* data, size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    word(sizeof(T));
    word(n);
    size_t bytes = n * sizeof(T);
    size_t at = out_.size();
    out_.resize(at + (bytes + 7) / 8, 0);
    if (bytes) std::memcpy(out_.data() + at, data, bytes);
  }

 private:
  std::vector<uint64_t>& out_;
};

class Reader {
 public:
  explicit Reader(const std::vector<uint64_t>& in) : in_(in) {}
  bool ok() const { return ok_; }
  uint64_t word() {
    if (at_ >= in_.size()) {
      ok_ = false;
      return 0;
    }
    return in_[at_++];
  }
  template <typename T>
  std::vector<T> pods() {
    static_assert(std::is_trivially_copyable_v<T>);
    uint64_t size = word(), n = word();
    std::vector<T> v;
    if (!ok_ || size != sizeof(T) || n > (in_.size() - at_) * 8 / sizeof(T)) {
      ok_ = false;
      return v;
    }
    v.resize(n);
    if (n) std::memcpy(static_cast<void*>(v.data()), in_.data() + at_, n * sizeof(T));
    at_ += (n * sizeof(T) + 7) / 8;
    return v;
  }
  bool done() const { return ok_ && at_ == in_.size(); }

 private:
  const std::vector<uint64_t>& in_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace

std::vector<uint64_t> DporStrategy::saved_state() const {
  // Optimal mode's wakeup trees are not saved; a plan still running (a
  // partitioned item) is not a state between two executions.
  if (optimal_ || in_flight_) return {};
  std::vector<uint64_t> out;
  Writer w(out);
  w.word(kMagic);
  w.word(started_);
  w.word(exhausted_);
  w.word(branch_);
  w.word(branch_thread_);
  w.word(races_);
  w.word(fairness_cuts_);
  w.word(root_sleep_mask_);
  w.word(collect_requests_);
  w.pods(fixed_prefix().data(), fixed_prefix().size());
  w.pods(owner_.data(), owner_.size());
  w.word(root_sleep_.has_value());
  if (root_sleep_) w.pods(root_sleep_->data(), root_sleep_->size());
  w.word(stack_.size());
  for (const Position& pos : stack_) {
    w.word(pos.enabled);
    w.word(pos.fair);
    w.word(pos.held_back);
    w.word(pos.backtrack);
    w.word(pos.done);
    w.word(pos.awaiting);
    w.pods(&pos.event, 1);
    w.pods(pos.sleep.data(), pos.sleep.size());
    w.pods(pos.tried.data(), pos.tried.size());
  }
  return out;
}

bool DporStrategy::restore_state(uint64_t /*next*/, const std::vector<uint64_t>& state) {
  if (optimal_) return false;
  Reader r(state);
  if (r.word() != kMagic) return false;
  bool started = r.word() != 0, exhausted = r.word() != 0;
  uint64_t branch = r.word(), branch_thread = r.word(), races = r.word(), cuts = r.word(), mask = r.word();
  bool collect = r.word() != 0;
  // The fixed prefix is the exploration's (set before): it must be the one
  // saved with the stack.
  if (r.pods<uint32_t>() != fixed_prefix()) return false;
  std::vector<uint32_t> owners = r.pods<uint32_t>();
  if (owners.size() != owner_.size()) return false;
  std::optional<std::vector<Sleeper>> root_sleep;
  if (r.word()) root_sleep = r.pods<Sleeper>();
  uint64_t depth = r.word();
  if (!r.ok() || depth > state.size()) return false;
  std::vector<Position> stack(depth);
  for (Position& pos : stack) {
    pos.enabled = r.word();
    pos.fair = r.word();
    pos.held_back = r.word();
    pos.backtrack = r.word();
    pos.done = r.word();
    pos.awaiting = r.word();
    std::vector<shm::Event> event = r.pods<shm::Event>();
    if (event.size() != 1) return false;
    pos.event = event[0];
    pos.sleep = r.pods<Sleeper>();
    pos.tried = r.pods<Sleeper>();
  }
  if (!r.done()) return false;
  started_ = started;
  exhausted_ = exhausted;
  branch_ = branch;
  branch_thread_ = uint32_t(branch_thread);
  races_ = races;
  fairness_cuts_ = cuts;
  root_sleep_mask_ = mask;
  collect_requests_ = collect;
  std::copy(owners.begin(), owners.end(), owner_.begin());
  root_sleep_ = std::move(root_sleep);
  stack_ = std::move(stack);
  in_flight_ = false;
  return true;
}

}  // namespace ctrl
