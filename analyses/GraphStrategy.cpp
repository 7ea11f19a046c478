#include "GraphStrategy.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <unordered_set>

#include "C11Consistency.h"
#include "C11Races.h"
#include "ExecutionGraph.h"
#include "ModelAnalysis.h"
#include "RmwValues.h"

namespace ctrl {

namespace {

// One execution to run: the graph it rebuilds, event by event (thread and
// how each event was added), and which of those were added maximally
// (reading the mo-last store, placed mo-last): TruSt's condition for
// revisiting from a graph is that every event the revisit deletes was.
struct PlanItem {
  std::vector<uint32_t> threads;
  std::vector<StepChoice> steps;
  std::vector<uint8_t> added_max;
  // The last step's write is new in this graph (a store placed earlier in
  // mo, a RMW reading another store or revisited): its backward revisits
  // are computed from this plan's execution, as for a write of the tail.
  bool last_is_new_write = false;
};

uint64_t plan_hash(const PlanItem& p) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    for (int b = 0; b < 8; b++) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (size_t i = 0; i < p.threads.size(); i++) {
    mix(p.threads[i]);
    mix(uint64_t(p.steps[i].choice.kind) | uint64_t(p.steps[i].choice.flags) << 8);
    mix(p.steps[i].rf);
    mix(p.steps[i].mo_before);
    mix(p.steps[i].choice.value);
  }
  return h;
}

}  // namespace

class GraphExplorer {
 public:
  explicit GraphExplorer(const ModelAnalysis& model, std::function<bool()> stop)
      : model_(model), stop_(std::move(stop)) {
    stack_.push_back(PlanItem{});
  }

  std::optional<ExecutionPlan> next() {
    if (stack_.empty()) return std::nullopt;
    current_ = std::move(stack_.back());
    stack_.pop_back();
    ExecutionPlan plan;
    plan.prefix = current_.threads;
    plan.choices.reserve(current_.steps.size());
    for (const StepChoice& s : current_.steps) plan.choices.push_back(s.choice);
    plan.policy = shm::TailPolicy::Sticky;
    return plan;
  }

  void completed(const ExecutionSummary& s) {
    if (stopped_) return;
    feasible_ = true;
    bugs_.clear();
    ExecutionGraph g = ExecutionGraph::build(s.events, s.steps, current_.steps);
    operands_.assign(s.steps, 0);
    for (uint64_t i = 0; i < s.steps; i++) operands_[i] = rmw_operand(s.events[i]);
    bool promised = false;
    for (const GraphEvent& e : g.events()) promised = promised || e.promise;
    if (!keep_promises(g) || !model_.consistent(g)) {
      feasible_ = false;
      counts_.infeasible++;
      // A promise's execution may fail only because of how the tail placed
      // or read what came after the promise (a store mo-last that had to go
      // before another): its alternatives may still keep it. Without a
      // promise the tail cannot make a consistent prefix inconsistent.
      if (promised) {
        for (uint32_t k = 0; k < g.size(); k++)
          if (g.at(k).promise) g.at(k).rf = kNone;
        incremental_ = false;
        alternatives(g);
      }
      return;
    }
    HappensBefore& hb = hb_;
    incremental_ = !promised;  // with a promise, clocks may depend on later events
    if (hb.compute(g)) {
      uint64_t inline_atomic = 0;
      bugs_ = find_data_races(g, hb, &inline_atomic);
      inline_atomic_ += inline_atomic;
      for (auto& b : find_initial_value_reads(g, hb)) bugs_.push_back(b);
    }
    if (s.complete) {
      if (seen_.insert(g.canonical_hash()).second)
        counts_.consistent++;
      else
        counts_.redundant++;
    }
    alternatives(g);
    exit_alternatives(g, s);
  }

  // The execution ended with a process exit while other threads still had
  // an operation to run: each of them that could have run instead of the
  // exit does, in a plan that rebuilds the graph up to the exit (a graph
  // alone has no place for what an exit cuts off: without this, a bug a
  // thread reaches only before another one's exit was never run). Each
  // such plan ends with an exit again, later, until the threads finish.
  void exit_alternatives(const ExecutionGraph& g, const ExecutionSummary& s) {
    if (s.steps == 0 || g.size() != s.steps || OpKind(s.events[s.steps - 1].kind) != OpKind::ProcessExit) return;
    uint32_t exit_step = uint32_t(s.steps - 1);
    std::vector<uint8_t> added_max(g.size(), 1);
    for (size_t i = 0; i < current_.added_max.size() && i < g.size(); i++) added_max[i] = current_.added_max[i];
    for (uint64_t q = 0; q < s.npending; q++) {
      const shm::Event& e = s.pending[q];
      if (e.thread >= shm::kFlushActorBase || !(e.enabled >> e.thread & 1)) continue;
      PlanItem p = plan_of(g, added_max, first_steps(exit_step), nullptr, 0);
      p.threads.push_back(e.thread);
      p.steps.push_back(StepChoice{});
      p.added_max.push_back(1);
      push(std::move(p));
    }
  }

  // The alternatives of the events the tail added (and of the last
  // planned one's new write), pushed so the latest event's pop first.
  void alternatives(const ExecutionGraph& g) {
    std::vector<uint8_t> added_max(g.size(), 1);
    size_t p = std::min<size_t>(current_.threads.size(), g.size());
    for (size_t i = 0; i < p && i < current_.added_max.size(); i++) added_max[i] = current_.added_max[i];
    // Alternatives are pushed so the stack pops the latest event's first.
    size_t first = p;
    if (p > 0 && current_.last_is_new_write) first = p - 1;
    for (size_t i = first; i < g.size(); i++) {
      if (stopping()) return;
      const GraphEvent& e = g.at(i);
      bool tail = i >= p;
      if (tail && e.is_read() && !e.fixed) read_alternatives(g, added_max, uint32_t(i));
      if (tail && e.is_read()) swap_alternatives(g, added_max, uint32_t(i));
      if (tail && e.kind == GraphKind::Write && !e.fixed) mo_alternatives(g, added_max, uint32_t(i));
      if (e.is_write()) backward_revisits(g, added_max, uint32_t(i));
    }
  }

  // Cut short by Ctrl-C or the time limit: alternatives are missing.
  bool exhaustive() const { return stack_.empty() && !stopped_; }
  bool last_feasible() const { return feasible_; }
  const std::vector<Strategy::ModelBug>& bugs() const { return bugs_; }
  Strategy::ModelCounts counts() const {
    Strategy::ModelCounts c = counts_;
    c.inline_atomic = inline_atomic_;
    return c;
  }

 private:
  // c11: each promised read reads from the first store its thread made
  // afterwards to the location with the promised value; false if none did.
  bool keep_promises(ExecutionGraph& g) {
    for (uint32_t r = 0; r < g.size(); r++) {
      GraphEvent& e = g.at(r);
      if (!e.promise) continue;
      uint32_t thread = current_.steps[r].choice.from;
      e.rf = kNone;
      for (uint32_t w = r + 1; w < g.size(); w++) {
        const GraphEvent& x = g.at(w);
        if (x.thread == thread && x.is_write() && x.loc == e.loc && x.wval == e.rval) {
          e.rf = w;
          break;
        }
      }
      if (e.rf == kNone) return false;
    }
    return true;
  }

  // The plan that replays `order` (steps of g, kept in that order) and then,
  // if `last` is given, event `last` modified as `changed`.
  PlanItem plan_of(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, const std::vector<uint32_t>& order,
                   const GraphEvent* changed, uint32_t changed_step, bool changed_max = false,
                   uint32_t changed_mo_before = kNone) {
    PlanItem p;
    std::vector<uint32_t> renumber(g.size(), kNone);
    std::vector<uint32_t> all = order;
    if (changed) all.push_back(changed_step);
    for (uint32_t k = 0; k < all.size(); k++) renumber[all[k]] = k;
    auto map = [&](uint32_t w) { return w == kInit || w == kNone ? w : renumber[w]; };
    // mo of the new graph: g's, restricted to the kept stores, with the
    // changed event's write moved where its new rf or mo_before puts it.
    std::map<uint64_t, std::vector<uint32_t>> mo;
    for (const auto& [loc, stores] : g.mo())
      for (uint32_t w : stores)
        if (renumber[w] != kNone && !(changed && w == changed_step)) mo[loc].push_back(w);
    if (changed && changed->is_write()) {
      std::vector<uint32_t>& ord = mo[changed->loc];
      std::vector<uint32_t>::iterator at = ord.end();
      if (changed->kind == GraphKind::Rmw && changed->rf != kNone)
        at = changed->rf == kInit ? ord.begin() : std::find(ord.begin(), ord.end(), changed->rf) + 1;
      else if (changed_mo_before != kNone)
        at = std::find(ord.begin(), ord.end(), changed_mo_before);
      ord.insert(std::min(at, ord.end()), changed_step);
    }
    for (uint32_t k = 0; k < all.size(); k++) {
      uint32_t old = all[k];
      const GraphEvent& e = (changed && old == changed_step) ? *changed : g.at(old);
      StepChoice c;
      if (e.is_read()) {
        c.rf = map(e.rf);
        if (e.promise) {
          c.choice.kind = shm::ChoiceKind::Promise;
          c.choice.from = current_promise_thread(g, old, e);
          c.choice.value = e.rval;
          c.rf = kNone;
        } else if (!e.fixed) {
          c.choice.kind = shm::ChoiceKind::ReadFrom;
          c.choice.from = c.rf;
          c.choice.value = g.value_of(e.rf, e.loc);
        }
      }
      if (e.is_write()) {
        // Not mo-last when a store that runs earlier is mo-after it.
        const std::vector<uint32_t>& ord = mo[e.loc];
        auto self = std::find(ord.begin(), ord.end(), old);
        for (auto it = self + 1; it < ord.end(); ++it)
          if (renumber[*it] < k) {
            c.choice.flags |= shm::kNotMoLast;
            if (e.kind != GraphKind::Rmw) c.mo_before = renumber[*it];
            break;
          }
      }
      p.threads.push_back(e.thread);
      p.steps.push_back(c);
      p.added_max.push_back(changed && old == changed_step ? changed_max : added_max[old]);
    }
    return p;
  }

  uint32_t current_promise_thread(const ExecutionGraph& g, uint32_t step, const GraphEvent& e) const {
    if (step < current_.steps.size() && current_.steps[step].choice.kind == shm::ChoiceKind::Promise)
      return current_.steps[step].choice.from;
    return e.rf != kNone && e.rf != kInit ? g.at(e.rf).thread : 0;
  }

  void push(PlanItem p) {
    if (!planned_.insert(plan_hash(p)).second) return;
    stack_.push_back(std::move(p));
  }

  static std::vector<uint32_t> first_steps(size_t n) {
    std::vector<uint32_t> v(n);
    for (uint32_t k = 0; k < n; k++) v[k] = k;
    return v;
  }

  // The event as it would be reading `w` instead (a compare-exchange may
  // succeed or fail differently).
  GraphEvent reading(const ExecutionGraph& g, uint32_t i, uint32_t w) const {
    GraphEvent e = g.at(i);
    e.rf = w;
    e.promise = false;
    e.rval = truncate_to_size(g.value_of(w, e.loc), 8);
    if (e.op == OpKind::AtomicCas) {
      e.kind = e.rval == e.expected ? GraphKind::Rmw : GraphKind::Read;
    } else if (e.op == OpKind::AtomicRmw) {
      e.wval = rmw_result(e.rmw, e.rval, operands_[i]);
    }
    return e;
  }

  // Forward: a read of the tail reads another store already in the graph.
  void read_alternatives(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t i) {
    const GraphEvent& e = g.at(i);
    ExecutionGraph before = g.prefix(i);
    before.reserve(i + 1);
    std::vector<uint32_t> stores{kInit};
    if (const auto* order = before.mo_of(e.loc)) stores.insert(stores.end(), order->begin(), order->end());
    // A spin loop's iteration that reads what the previous one read changes
    // nothing (GenMC's spin assumption): it may only read a newer store.
    uint32_t floor = kNone;
    if (e.same_state)
      for (uint32_t k = i; k-- > 0;)
        if (g.at(k).thread == e.thread && g.at(k).is_read() && g.at(k).loc == e.loc) {
          floor = g.at(k).rf;
          break;
        }
    for (uint32_t w : stores) {
      if (stopping()) return;
      if (w == e.rf) continue;
      if (floor != kNone && before.mo_position(e.loc, w) <= before.mo_position(e.loc, floor)) continue;
      GraphEvent alt = reading(g, i, w);
      if (alt.kind == GraphKind::Rmw && read_by_rmw(before, w, e.loc)) continue;  // swap_alternatives
      // The candidate is `before` with alt added, taken off again after.
      if (!with_event(before, alt, kNone)) continue;
      bool ok = extension_consistent(before);
      before.pop_last();
      if (!ok) continue;
      PlanItem p = plan_of(g, added_max, first_steps(i), &alt, i);
      p.last_is_new_write = alt.is_write();
      push(std::move(p));
    }
  }

  // Forward: a store of the tail placed before a store already in mo.
  void mo_alternatives(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t i) {
    const GraphEvent& e = g.at(i);
    ExecutionGraph before = g.prefix(i);
    before.reserve(i + 1);
    const auto* found = before.mo_of(e.loc);
    if (!found) return;
    const std::vector<uint32_t> order = *found;  // (before's own changes below)
    for (uint32_t s : order) {
      if (stopping()) return;
      if (!with_event(before, e, s)) continue;
      bool ok = extension_consistent(before);
      before.pop_last();
      if (!ok) continue;
      PlanItem p = plan_of(g, added_max, first_steps(i), &e, i, false, s);
      p.last_is_new_write = true;
      push(std::move(p));
    }
  }

  // Whether the exploration must stop (Ctrl-C, the time limit), asked at
  // most every 50 ms: the analysis of one long execution can take seconds.
  bool stopping() {
    if (stopped_) return true;
    auto now = std::chrono::steady_clock::now();
    if (now - last_poll_ < std::chrono::milliseconds(50)) return false;
    last_poll_ = now;
    stopped_ = stop_ && stop_();
    return stopped_;
  }

  // cand: the graph of the execution's first events, consistent, plus one.
  bool extension_consistent(const ExecutionGraph& cand) const {
    return incremental_ ? model_.consistent_last(cand, hb_) : model_.consistent(cand);
  }

  // Appends event e to `g` (its write placed right after its rf for a RMW,
  // before `mo_before`, or last; ExecutionGraph::pop_last undoes it). False,
  // g unchanged, when the position does not exist.
  static bool with_event(ExecutionGraph& g, const GraphEvent& e, uint32_t mo_before) {
    uint32_t step = uint32_t(g.size());
    if (!e.is_write()) {
      g.push(e);
      return true;
    }
    std::vector<uint32_t>& ord = g.mo(e.loc);
    if (e.kind == GraphKind::Rmw) {
      auto at = e.rf == kInit ? ord.begin() : std::find(ord.begin(), ord.end(), e.rf);
      if (e.rf != kInit) {
        if (at == ord.end()) return false;
        ++at;
      }
      ord.insert(at, step);
    } else if (mo_before != kNone) {
      auto at = std::find(ord.begin(), ord.end(), mo_before);
      if (at == ord.end()) return false;
      ord.insert(at, step);
    } else {
      ord.push_back(step);
    }
    g.push(e);
    return true;
  }

  // Some RMW of g reads w (a step, or loc's initial value).
  static bool read_by_rmw(const ExecutionGraph& g, uint32_t w, uint64_t loc) {
    for (const GraphEvent& x : g.events())
      if (x.kind == GraphKind::Rmw && x.rf == w && x.loc == loc && !x.promise) return true;
    return false;
  }

  // A RMW of the tail that reads the store another RMW u already read: it
  // goes first, and u reads its write instead (a lock: u waits, and the
  // tail takes it again later).
  void swap_alternatives(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t i) {
    const GraphEvent& e = g.at(i);
    for (uint32_t u = 0; u < i; u++) {
      if (stopping()) return;
      const GraphEvent& other = g.at(u);
      if (other.kind != GraphKind::Rmw || other.loc != e.loc || other.promise || other.rf == kNone) continue;
      if (e.fixed != other.fixed) continue;
      GraphEvent alt = reading(g, i, other.rf);
      if (alt.kind != GraphKind::Rmw) continue;
      // e's prefix as it would be reading u's store.
      ExecutionGraph h = g.prefix(i + 1);
      h.at(i) = alt;
      std::vector<bool> pre = h.porf_prefix(i);
      if (pre[u]) continue;
      // The graph with e reading u's store breaks atomicity, so it is not
      // run; its write's backward revisits are made here, as GenMC makes
      // them from such a graph: of u, and of any read before u outside e's
      // new prefix (the revisit deletes u then).
      for (uint32_t r = 0; r <= u; r++) {
        const GraphEvent& x = g.at(r);
        if (!x.is_read() || x.loc != e.loc || x.promise || pre[r]) continue;
        if (x.fixed && x.kind != GraphKind::Rmw) continue;
        if (r != u && x.fixed) continue;
        revisit(g, added_max, r, i, alt, pre);
      }
    }
  }

  // Backward: the write of event i lets an earlier read r read it.
  void backward_revisits(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t i) {
    const GraphEvent& w = g.at(i);
    ExecutionGraph upto = g.prefix(i + 1);
    std::vector<bool> pre = upto.porf_prefix(i);
    HappensBefore hb;
    bool have_hb = model_.reads_from_later_stores() && hb.compute(upto);
    for (uint32_t r = 0; r < i; r++) {
      if (stopping()) return;
      const GraphEvent& e = g.at(r);
      if (!e.is_read() || e.loc != w.loc || e.rf == i || e.promise) continue;
      if (e.fixed && e.kind != GraphKind::Rmw) continue;  // a failed trylock
      if (!pre[r]) {
        revisit(g, added_max, r, i, w, pre);
      } else if (have_hb && e.kind == GraphKind::Read && !e.fixed && !hb.before(r, i)) {
        promise(g, added_max, r, i);
      }
    }
  }

  // TruSt's maximality: every event the revisit of r by w deletes (and r
  // itself) was added maximally, and reads (or is) a store that no kept
  // store other than w follows in mo.
  bool maximal(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t r, uint32_t w,
               const std::vector<bool>& keep) const {
    auto kept_after = [&](uint64_t loc, uint32_t s) {
      const auto* ord = g.mo_of(loc);
      if (!ord) return false;
      auto it = s == kInit ? ord->begin() : std::find(ord->begin(), ord->end(), s) + 1;
      for (; it < ord->end(); ++it)
        if (*it != w && *it < keep.size() && keep[*it]) return true;
      return false;
    };
    for (uint32_t k = r; k < keep.size(); k++) {
      if (k != r && keep[k]) continue;
      const GraphEvent& e = g.at(k);
      if (!added_max[k]) return false;
      if (e.is_read() && (e.promise || e.rf == kNone || (e.rf != kInit && e.rf > k))) return false;
      if (e.is_read() && kept_after(e.loc, e.rf)) return false;
      if (e.is_write() && k != r && kept_after(e.loc, k)) return false;
    }
    return true;
  }

  void revisit(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t r, uint32_t i,
               const GraphEvent& w, const std::vector<bool>& prefix_of_w) {
    size_t n = i + 1;
    std::vector<bool> keep(n, false);
    for (uint32_t k = 0; k < n; k++) keep[k] = k < r || prefix_of_w[k];
    keep[i] = true;
    // The write's mo-successor (if any) must stay: revisits that differ
    // only in where the write is placed are made from that placement.
    if (w.kind != GraphKind::Rmw) {
      const auto* ord = g.mo_of(w.loc);
      if (ord) {
        auto self = std::find(ord->begin(), ord->end(), i);
        for (auto it = self + (self < ord->end() ? 1 : 0); it < ord->end(); ++it)
          if (*it < n) {
            if (!keep[*it]) return;
            break;
          }
      }
    }
    if (!maximal(g, added_max, r, i, keep)) return;
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < n; k++)
      if (keep[k] && k != r) order.push_back(k);
    const GraphEvent& read = g.at(r);
    ExecutionGraph base = g.prefix(n);
    base.at(i) = w;
    if (w.kind == GraphKind::Rmw) {
      // w may read another store than it did in g (swap_alternatives).
      std::vector<uint32_t>& ord = base.mo(w.loc);
      ord.erase(std::remove(ord.begin(), ord.end(), i), ord.end());
      auto at = w.rf == kInit ? ord.begin() : std::find(ord.begin(), ord.end(), w.rf) + 1;
      ord.insert(std::min(at, ord.end()), i);
    }
    // An event that reads another store than it did (swap_alternatives)
    // was not added maximally.
    std::vector<uint8_t> marks = added_max;
    if (w.rf != g.at(i).rf) marks[i] = 0;
    if (read.fixed) {
      // A lock reading w waits for it: it is left out, the tail takes it.
      PlanItem p = plan_of(base, marks, order, nullptr, 0);
      ExecutionGraph cand = subgraph(base, order, nullptr, 0);
      if (!model_.consistent(cand)) return;
      push(std::move(p));
      return;
    }
    GraphEvent moved = reading(base, r, i);
    ExecutionGraph cand = subgraph(base, order, &moved, r);
    if (!model_.consistent(cand)) return;
    // As GenMC does: a revisited read was added maximally when the store it
    // now reads is mo-last in the new graph (its own write aside).
    bool max = true;
    {
      const std::vector<uint32_t>& ord = cand.mo(moved.loc);
      uint32_t self = uint32_t(cand.size() - 1);
      uint32_t w_new = uint32_t(std::find(order.begin(), order.end(), i) - order.begin());
      auto it = std::find(ord.begin(), ord.end(), w_new);
      for (++it; it < ord.end(); ++it)
        if (*it != self) max = false;
    }
    PlanItem p = plan_of(base, marks, order, &moved, r, max);
    p.last_is_new_write = moved.is_write();
    push(std::move(p));
  }

  // c11: read r, po-before write i through rf, reads i's value as a promise.
  void promise(const ExecutionGraph& g, const std::vector<uint8_t>& added_max, uint32_t r, uint32_t i) {
    // Not from a store that itself follows an earlier unkept promise
    // (CDSChecker's rule against self-feeding speculation).
    for (uint32_t z = r + 1; z < i; z++)
      if (g.at(z).promise) return;
    std::vector<bool> keep(i + 1, false);
    for (uint32_t k = 0; k < r; k++) keep[k] = true;
    if (!maximal(g, added_max, r, i, keep)) return;
    GraphEvent moved = g.at(r);
    moved.promise = true;
    moved.rval = g.at(i).wval;
    moved.rf = kNone;
    PlanItem p = plan_of(g, added_max, first_steps(r), nullptr, 0);
    StepChoice c;
    c.choice.kind = shm::ChoiceKind::Promise;
    c.choice.from = g.at(i).thread;
    c.choice.value = moved.rval;
    p.threads.push_back(moved.thread);
    p.steps.push_back(c);
    p.added_max.push_back(0);
    p.last_is_new_write = false;
    push(std::move(p));
  }

  // The graph of `order` (steps of g, renumbered in that order) and then
  // `changed` in place of step `changed_step`.
  static ExecutionGraph subgraph(const ExecutionGraph& g, const std::vector<uint32_t>& order, const GraphEvent* changed,
                                 uint32_t changed_step) {
    std::vector<uint32_t> all = order;
    if (changed) all.push_back(changed_step);
    std::vector<uint32_t> renumber(g.size(), kNone);
    for (uint32_t k = 0; k < all.size(); k++) renumber[all[k]] = k;
    auto map = [&](uint32_t w) { return w == kInit || w == kNone ? w : renumber[w]; };
    ExecutionGraph out;
    for (uint32_t k = 0; k < all.size(); k++) {
      GraphEvent e = (changed && all[k] == changed_step) ? *changed : g.at(all[k]);
      if (e.is_read()) e.rf = map(e.rf);
      e.sync_from = map(e.sync_from);
      out.push(e);
    }
    for (const auto& [loc, stores] : g.mo()) {
      std::vector<uint32_t>& ord = out.mo(loc);
      for (uint32_t w : stores)
        if (renumber[w] != kNone && !(changed && w == changed_step)) ord.push_back(renumber[w]);
      out.set_init_value(loc, g.init_value(loc));
    }
    if (changed && changed->is_write()) {
      std::vector<uint32_t>& ord = out.mo(changed->loc);
      uint32_t self = renumber[changed_step];
      uint32_t rf = map(changed->rf);
      auto at = rf == kInit ? ord.begin() : std::find(ord.begin(), ord.end(), rf) + 1;
      ord.insert(std::min(at, ord.end()), self);
    }
    // Indices within a thread follow the kept events.
    std::map<uint32_t, uint32_t> next_index;
    for (uint32_t k = 0; k < out.size(); k++) out.at(k).index = next_index[out.at(k).thread]++;
    return out;
  }

  const ModelAnalysis& model_;
  std::function<bool()> stop_;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point last_poll_{};
  std::vector<PlanItem> stack_;
  PlanItem current_;
  std::vector<uint64_t> operands_;
  std::unordered_set<uint64_t> seen_;     // complete graphs
  std::unordered_set<uint64_t> planned_;  // plans pushed
  Strategy::ModelCounts counts_;
  bool feasible_ = true;
  HappensBefore hb_;         // of the latest execution's graph
  bool incremental_ = true;  // hb_ holds for every prefix of it
  std::vector<Strategy::ModelBug> bugs_;
  uint64_t inline_atomic_ = 0;  // plain accesses taken for inline atomics
};

GraphStrategy::GraphStrategy(const ModelAnalysis& model)
    : explorer_(std::make_unique<GraphExplorer>(model, [this] { return stop_requested_now(); })) {}
GraphStrategy::~GraphStrategy() = default;
std::optional<ExecutionPlan> GraphStrategy::next() { return explorer_->next(); }
void GraphStrategy::completed(const ExecutionSummary& s) { explorer_->completed(s); }
bool GraphStrategy::exhaustive() const { return explorer_->exhaustive(); }
bool GraphStrategy::last_feasible() const { return explorer_->last_feasible(); }
std::optional<Strategy::ModelCounts> GraphStrategy::model_counts() const { return explorer_->counts(); }
std::vector<Strategy::ModelBug> GraphStrategy::last_model_bugs() const { return explorer_->bugs(); }

}  // namespace ctrl
