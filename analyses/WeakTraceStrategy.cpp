#include "WeakTraceStrategy.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>

#include "C11Consistency.h"
#include "C11Races.h"
#include "ExecutionGraph.h"
#include "RaSaturation.h"
#include "RmwValues.h"

namespace ctrl {

namespace {

// An event named as the recursive algorithm names it: (thread, its index
// among the thread's events); kInitId for a location's initial value.
using EventId = uint64_t;
constexpr EventId kInitId = UINT64_MAX;
constexpr EventId kAnySource = UINT64_MAX - 1;  // a read the plan does not steer
EventId id_of(const GraphEvent& e) { return uint64_t(e.thread) << 32 | e.index; }

// One decision of a plan: the thread, and for a read the write it reads.
struct Step {
  uint32_t thread = 0;
  EventId source = kAnySource;
  uint64_t value = 0;  // the source's value
  bool swappable = true;
  // The event as it ran (its rf and sync_from are recomputed from `source`
  // and `sync` when the plan is saturated: memory_below).
  GraphEvent event;
  EventId sync = kAnySource;
};

// A read DFVISIT made at step `pos`: the writes it has yet to read, and the
// schedules that make it read a write that came later.
struct Node {
  uint32_t pos = 0;
  // Steps 0..pos-1: the first pos steps of `steps`, the execution the node
  // was made in (its nodes share it: copying every read's prefix made the
  // analysis of an execution quadratic in its length).
  std::shared_ptr<const std::vector<Step>> steps;
  std::vector<Step>::const_iterator prefix_begin() const { return steps->begin(); }
  std::vector<Step>::const_iterator prefix_end() const { return steps->begin() + pos; }
  Step read;  // the read's step (source set per alternative)
  std::vector<std::pair<EventId, uint64_t>> sources;
  std::vector<std::vector<Step>> schedules;
  std::set<std::vector<EventId>> scheduled;  // each schedule's observations, sorted
  // A node a RMW swap made for the read of the node at `origin` (kNone:
  // none): its schedules are deduplicated with that node's, as the plans
  // from `origin` they are (the same observations from `origin` on are the
  // same weak trace, reached once).
  uint32_t origin = kNone;
  // For such a node: the RMW its read was swapped behind (the read reads
  // it), else kAnySource.
  EventId behind = kAnySource;
};

uint64_t mix(uint64_t h, uint64_t v) {
  for (int b = 0; b < 8; b++) {
    h ^= (v >> (8 * b)) & 0xff;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

class WeakTraceExplorer {
 public:
  explicit WeakTraceExplorer(std::function<bool()> stop) : stop_(std::move(stop)) {}

  std::optional<ExecutionPlan> next() {
    if (!started_) {
      started_ = true;
      current_.clear();
      return plan_of(current_);
    }
    while (!stack_.empty()) {
      if (stopped_) return std::nullopt;
      Node& n = stack_.back();
      if (!n.sources.empty()) {
        auto [src, value] = n.sources.front();
        n.sources.erase(n.sources.begin());
        current_.assign(n.prefix_begin(), n.prefix_end());
        Step r = n.read;
        r.source = src;
        r.value = value;
        r.swappable = true;
        current_.push_back(r);
        issuer_ = n.origin != kNone ? n.origin : n.pos;
        shared_ = n.pos;
        return plan_of(current_);
      }
      if (!n.schedules.empty()) {
        current_.assign(n.prefix_begin(), n.prefix_end());
        for (const Step& s : n.schedules.front()) current_.push_back(s);
        n.schedules.erase(n.schedules.begin());
        issuer_ = n.origin != kNone ? n.origin : n.pos;
        shared_ = n.pos;
        return plan_of(current_);
      }
      stack_.pop_back();
    }
    return std::nullopt;
  }

  void completed(const ExecutionSummary& s) {
    if (stopped_) return;
    feasible_ = true;
    bugs_.clear();
    // The graph the plan asked for: steered reads read their source, the
    // tail's read memory (ExecutionGraph::build: the latest write).
    std::vector<StepChoice> choices(std::min<size_t>(current_.size(), s.steps));
    std::vector<EventId> ids(s.steps);
    {
      std::vector<uint32_t> count;
      for (uint64_t i = 0; i < s.steps; i++) {
        uint32_t t = s.events[i].thread;
        if (count.size() <= t) count.resize(t + 1, 0);
        ids[i] = uint64_t(t) << 32 | count[t]++;
      }
    }
    for (size_t k = 0; k < choices.size(); k++) {
      EventId src = current_[k].source;
      if (src == kAnySource) continue;
      choices[k].choice.kind = shm::ChoiceKind::ReadFrom;
      choices[k].rf = src == kInitId ? kInit : step_of(ids, src, k);
    }
    for (size_t k = 0; k < choices.size() && k < below_.size(); k++)
      if (below_[k] != kNone) {
        choices[k].choice.flags |= shm::kNotMoLast;
        choices[k].mo_before = below_[k];
      }
    ExecutionGraph g = ExecutionGraph::build(s.events, s.steps, choices);
    operands_.assign(s.steps, 0);
    for (uint64_t i = 0; i < s.steps; i++) operands_[i] = rmw_operand(s.events[i]);
    as_release_acquire(g);
    size_t planned = current_.size();
    // Replay the execution in the saturated semantics; readable sets of the
    // tail's reads are the alternatives.
    RaSaturation sat;
    std::vector<std::vector<uint32_t>> readable(g.size());
    size_t valid = g.size();
    for (uint32_t i = 0; i < g.size(); i++) {
      const GraphEvent& e = g.at(i);
      if (e.is_read()) readable[i] = sat.readable(e);
      if (!sat.push(e)) {
        valid = i;
        break;
      }
    }
    if (valid < g.size()) {
      feasible_ = false;
      counts_.infeasible++;
    }
    if (valid == g.size() && s.complete) {
      // The weak trace, whatever order its events ran in.
      std::vector<std::pair<EventId, EventId>> pairs;
      for (uint32_t i = 0; i < g.size(); i++) {
        const GraphEvent& e = g.at(i);
        pairs.emplace_back(id_of(e), e.is_read() ? (e.rf == kInit ? kInitId : id_of(g.at(e.rf))) : 0);
      }
      std::sort(pairs.begin(), pairs.end());
      uint64_t h = 1469598103934665603ull;
      for (auto& [a, b] : pairs) h = mix(mix(h, a), b);
      if (seen_.insert(h).second)
        counts_.consistent++;
      else
        counts_.redundant++;
    }
    if (valid == g.size()) {
      HappensBefore hb;
      if (hb.compute(g)) {
        uint64_t inline_atomic = 0;
        bugs_ = find_data_races(g, hb, &inline_atomic);
        inline_atomic_ += inline_atomic;
        for (auto& b : find_initial_value_reads(g, hb)) bugs_.push_back(b);
      }
    }
    // Nodes for the reads the tail made (and the one it could not make).
    auto shared = std::make_shared<const std::vector<Step>>(steps_of(g, ids, std::min(valid + 1, g.size())));
    const std::vector<Step>& steps = *shared;
    // A read-modify-write a swap made read the one that went first stays
    // swappable (a later one may go before it in turn): it gets a node, with
    // nothing else to read but schedules to come.
    if (planned > 0 && planned <= valid && planned - 1 < g.size() && current_.back().swappable &&
        g.at(planned - 1).kind == GraphKind::Rmw && !node_at(uint32_t(planned - 1))) {
      Node n;
      n.pos = uint32_t(planned - 1);
      n.steps = shared;
      n.read = steps[n.pos];
      n.origin = issuer_;
      n.behind = current_.back().source;
      stack_.push_back(std::move(n));
    }
    for (uint32_t i = uint32_t(planned); i < g.size() && i <= valid; i++) {
      const GraphEvent& e = g.at(i);
      if (!e.is_read()) continue;
      if (i == valid && e.fixed) break;  // nothing else it can read
      Node n;
      n.pos = i;
      n.steps = shared;
      n.read = steps[i];
      // A spin loop's iteration that reads what the previous one read
      // changes nothing (GenMC's spin assumption, as GraphStrategy): it is
      // not offered that write again. Without this every execution of a
      // spin loop offered one more stale iteration, the next execution ran
      // one step longer, and the search never ended (c11_mcs_lock).
      uint32_t again = kNone;
      if (e.same_state)
        for (uint32_t k = i; k-- > 0;)
          if (g.at(k).thread == e.thread && g.at(k).is_read() && g.at(k).loc == e.loc) {
            again = g.at(k).rf;
            break;
          }
      if (!e.fixed)
        for (uint32_t w : readable[i])
          if ((i == valid || w != e.rf) && w != again)
            n.sources.emplace_back(w == kInit ? kInitId : ids[w], g.value_of(w, e.loc));
      stack_.push_back(std::move(n));
    }
    if (stopping()) return;
    // Postponed writes (DECLAREPOSTPONED, for every write of the valid part
    // but those of the node's prefix: the execution that made the node ran
    // the same steps there and declared them, to the same nodes, below it
    // in the stack, so they would only be dropped as duplicates).
    for (uint32_t j = shared_; j < valid; j++) {
      const GraphEvent& w = g.at(j);
      if (!w.is_write()) continue;
      for (uint32_t i = 0; i < j; i++) {
        const GraphEvent& r = g.at(i);
        if (!r.is_read() || r.loc != w.loc || sat.hb_before(i, j)) continue;
        if (i < planned && !current_[i].swappable) continue;
        Node* n = node_at(i);
        if (!n) continue;
        // A node swapped behind RMW b: unless b is hb-before w, the read's
        // original node schedules w too, and b, run after, reads there what
        // it reads here (WeakTraceStrategy.h).
        if (n->behind != kAnySource) {
          uint32_t first = step_of(ids, n->behind, i);
          if (first == kNone || !sat.hb_before(first, j)) continue;
        }
        std::vector<Step> sched;
        for (uint32_t k = i + 1; k < j; k++)
          if (sat.hb_before(k, j)) sched.push_back(replayed(steps[k]));
        sched.push_back(replayed(steps[j]));
        Step read = steps[i];
        read.source = r.fixed ? kAnySource : ids[j];  // a pthread call reads memory: j's write
        read.value = w.wval;
        read.swappable = false;
        sched.push_back(read);
        add_schedule(*n, std::move(sched));
      }
      if (w.kind == GraphKind::Rmw) rmw_swaps(g, sat, ids, steps, j);
      if (stopping()) return;
    }
  }

  bool exhaustive() const { return stack_.empty() && !stopped_; }
  bool last_feasible() const { return feasible_; }
  const std::vector<Strategy::ModelBug>& bugs() const { return bugs_; }
  Strategy::ModelCounts counts() const {
    Strategy::ModelCounts c = counts_;
    c.inline_atomic = inline_atomic_;
    return c;
  }

 private:
  // RMW j could read what an earlier RMW i (swappable, not before it once
  // j's own read is set aside) read: i gets a schedule in which j goes
  // first, reading that write, and i reads j (a lock i is left to the tail:
  // it waits for the unlock).
  void rmw_swaps(const ExecutionGraph& g, const RaSaturation& sat, const std::vector<EventId>& ids,
                 const std::vector<Step>& steps, uint32_t j) {
    const GraphEvent& w = g.at(j);
    // j's prefix without its own rf: its po-predecessor's and sync's.
    uint32_t prev = g.po_previous(j);
    auto in_prefix = [&](uint32_t k) {
      if (k == prev) return true;
      if (prev != kNone && sat.hb_before(k, prev)) return true;
      if (w.sync_from != kNone && (k == w.sync_from || sat.hb_before(k, w.sync_from))) return true;
      return false;
    };
    for (uint32_t i = 0; i < j; i++) {
      const GraphEvent& r = g.at(i);
      if (r.kind != GraphKind::Rmw || r.loc != w.loc || r.rf == kNone || in_prefix(i)) continue;
      if (r.fixed != w.fixed) continue;
      if (r.rf != kInit && r.rf > i) continue;
      if (i < steps.size() && i < current_.size() && !current_[i].swappable) continue;
      Node* n = node_at(i);
      if (!n) continue;
      std::vector<Step> sched;
      for (uint32_t k = i + 1; k < j; k++)
        if (in_prefix(k)) sched.push_back(replayed(steps[k]));
      Step first = replayed(steps[j]);
      if (!w.fixed) {
        first.source = r.rf == kInit ? kInitId : ids[r.rf];
        first.value = g.value_of(r.rf, r.loc);
      }
      sched.push_back(first);
      if (!r.fixed) {
        // j's write once it reads r's source instead.
        uint64_t old = g.value_of(r.rf, r.loc);
        uint64_t value = w.wval;
        if (w.op == OpKind::AtomicCas) {
          if (truncate_to_size(old, w.size) != truncate_to_size(w.expected, w.size)) continue;  // j would fail
        } else if (w.op == OpKind::AtomicRmw) {
          value = truncate_to_size(rmw_result(w.rmw, old, operands_[j]), w.size);
        }
        Step read = steps[i];
        read.source = ids[j];
        read.value = value;
        read.swappable = true;
        sched.push_back(read);
      }
      add_schedule(*n, std::move(sched));
    }
  }

  Step replayed(Step s) const {
    s.swappable = false;
    return s;
  }

  // The steps of g's first n events as a plan replays them: every read
  // steered to the write it read.
  std::vector<Step> steps_of(const ExecutionGraph& g, const std::vector<EventId>& ids, size_t n) const {
    std::vector<Step> out(n);
    for (uint32_t k = 0; k < n; k++) {
      const GraphEvent& e = g.at(k);
      out[k].thread = e.thread;
      out[k].swappable = k < current_.size() ? current_[k].swappable : true;
      out[k].event = e;
      out[k].sync = e.sync_from == kNone || e.sync_from == kInit ? kAnySource : ids[e.sync_from];
      if (e.is_read() && !e.fixed && e.rf != kNone) {
        out[k].source = e.rf == kInit ? kInitId : ids[e.rf];
        out[k].value = g.value_of(e.rf, e.loc);
      }
    }
    return out;
  }

  void add_schedule(Node& n, std::vector<Step> sched) {
    Node* o = n.origin != kNone ? node_at(n.origin) : nullptr;
    if (o && o->pos < n.pos) {
      // Keyed as the plan from the origin it is.
      std::vector<Step> whole(n.prefix_begin() + o->pos, n.prefix_end());
      whole.insert(whole.end(), sched.begin(), sched.end());
      if (!o->scheduled.insert(key_of(*o, whole)).second) return;
      n.schedules.push_back(std::move(sched));
      return;
    }
    if (!n.scheduled.insert(key_of(n, sched)).second) return;
    n.schedules.push_back(std::move(sched));
  }

  // A schedule's observations from node n on, sorted: the same observations
  // in another order are one schedule.
  static std::vector<EventId> key_of(const Node& n, const std::vector<Step>& sched) {
    std::vector<EventId> key;
    std::vector<uint32_t> count;
    auto next_id = [&](uint32_t t) {
      if (count.empty()) {
        for (auto it = n.prefix_begin(); it != n.prefix_end(); ++it) {
          const Step& s = *it;
          if (count.size() <= s.thread) count.resize(s.thread + 1, 0);
          count[s.thread]++;
        }
      }
      if (count.size() <= t) count.resize(t + 1, 0);
      return uint64_t(t) << 32 | count[t]++;
    };
    for (const Step& s : sched) {
      key.push_back(next_id(s.thread));
      key.push_back(s.source);
    }
    // Sorted pairs: the same observations in another order are one schedule.
    std::vector<std::pair<EventId, EventId>> pairs;
    for (size_t k = 0; k < key.size(); k += 2) pairs.emplace_back(key[k], key[k + 1]);
    std::sort(pairs.begin(), pairs.end());
    key.clear();
    for (auto& [a, b] : pairs) key.push_back(a), key.push_back(b);
    return key;
  }

  Node* node_at(uint32_t pos) {
    auto it = std::lower_bound(stack_.begin(), stack_.end(), pos, [](const Node& n, uint32_t p) { return n.pos < p; });
    return it != stack_.end() && it->pos == pos ? &*it : nullptr;
  }

  static uint32_t step_of(const std::vector<EventId>& ids, EventId id, size_t before) {
    for (size_t k = 0; k < before && k < ids.size(); k++)
      if (ids[k] == id) return uint32_t(k);
    return kNone;
  }

  // The plan of `steps`; also sets below_ (memory_below).
  ExecutionPlan plan_of(const std::vector<Step>& steps) {
    below_ = memory_below(steps);
    ExecutionPlan plan;
    plan.policy = shm::TailPolicy::Sticky;
    std::vector<uint32_t> count;
    std::vector<EventId> ids;
    for (size_t k = 0; k < steps.size(); k++) {
      const Step& s = steps[k];
      if (count.size() <= s.thread) count.resize(s.thread + 1, 0);
      ids.push_back(uint64_t(s.thread) << 32 | count[s.thread]++);
      plan.prefix.push_back(s.thread);
      shm::Choice c{};
      if (s.source != kAnySource) {
        c.kind = shm::ChoiceKind::ReadFrom;
        c.from = s.source == kInitId ? shm::kFromInit : step_of(ids, s.source, k);
        c.value = s.value;
      }
      if (below_[k] != kNone) c.flags |= shm::kNotMoLast;
      plan.choices.push_back(c);
    }
    return plan;
  }

  // Which of the plan's writes must not reach memory, so that when the tail
  // starts every location holds a write no other write to it follows in
  // (po ∪ rf ∪ co_x)+ (the latest such in the plan): one every thread may
  // read, so the tail's reads of memory stay RA-consistent (a new write
  // is such a write, and a read of one only adds co edges into it). Per
  // step: kNone, or the step of the write memory keeps (the write is placed
  // before it). Locations a pthread call or locked instruction touches are
  // left alone (those read memory).
  static std::vector<uint32_t> memory_below(const std::vector<Step>& steps) {
    std::vector<uint32_t> below(steps.size(), kNone);
    std::vector<EventId> ids;
    std::vector<uint32_t> count;
    RaSaturation sat;
    std::map<uint64_t, uint32_t> last_write;
    std::set<uint64_t> untouchable;
    for (uint32_t k = 0; k < steps.size(); k++) {
      const Step& s = steps[k];
      if (count.size() <= s.thread) count.resize(s.thread + 1, 0);
      ids.push_back(uint64_t(s.thread) << 32 | count[s.thread]++);
      GraphEvent e = s.event;
      e.index = uint32_t(ids.back());
      e.sync_from = s.sync == kAnySource ? kNone : step_of(ids, s.sync, k);
      if (e.is_read()) {
        if (s.source == kAnySource) {
          auto it = last_write.find(e.loc);
          e.rf = it == last_write.end() ? kInit : it->second;
        } else {
          e.rf = s.source == kInitId ? kInit : step_of(ids, s.source, k);
        }
        if (e.rf == kNone) return below;
      }
      if (e.fixed || !e.atomic()) untouchable.insert(e.loc);
      if (!sat.push(e)) return below;
      if (e.is_write()) last_write[e.loc] = k;
    }
    for (const auto& [loc, last] : last_write) {
      if (untouchable.count(loc)) continue;
      std::vector<uint32_t> top = sat.maximal_writes(loc);
      if (top.empty()) continue;
      uint32_t keep = *std::max_element(top.begin(), top.end());
      for (uint32_t k = keep + 1; k <= last; k++)
        if (steps[k].event.is_write() && steps[k].event.loc == loc) below[k] = keep;
    }
    return below;
  }

  bool stopping() {
    if (stopped_) return true;
    auto now = std::chrono::steady_clock::now();
    if (now - last_poll_ < std::chrono::milliseconds(50)) return false;
    last_poll_ = now;
    stopped_ = stop_ && stop_();
    return stopped_;
  }

  std::function<bool()> stop_;
  bool stopped_ = false;
  bool started_ = false;
  std::chrono::steady_clock::time_point last_poll_{};
  std::vector<Node> stack_;  // by step, the deepest last
  std::vector<Step> current_;
  uint32_t issuer_ = kNone;         // the node (its origin) whose alternative current_ is
  uint32_t shared_ = 0;             // that node's position: current_ repeats its prefix
  std::vector<uint32_t> below_;     // memory_below(current_)
  std::vector<uint64_t> operands_;  // per step of the last execution: a RMW's operand
  std::unordered_set<uint64_t> seen_;
  Strategy::ModelCounts counts_;
  bool feasible_ = true;
  std::vector<Strategy::ModelBug> bugs_;
  uint64_t inline_atomic_ = 0;
};

WeakTraceStrategy::WeakTraceStrategy()
    : explorer_(std::make_unique<WeakTraceExplorer>([this] { return stop_requested_now(); })) {}
WeakTraceStrategy::~WeakTraceStrategy() = default;
std::optional<ExecutionPlan> WeakTraceStrategy::next() { return explorer_->next(); }
void WeakTraceStrategy::completed(const ExecutionSummary& s) { explorer_->completed(s); }
bool WeakTraceStrategy::exhaustive() const { return explorer_->exhaustive(); }
bool WeakTraceStrategy::last_feasible() const { return explorer_->last_feasible(); }
std::optional<Strategy::ModelCounts> WeakTraceStrategy::model_counts() const { return explorer_->counts(); }
std::vector<Strategy::ModelBug> WeakTraceStrategy::last_model_bugs() const { return explorer_->bugs(); }

}  // namespace ctrl
