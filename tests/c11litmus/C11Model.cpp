#include "C11Model.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

#include "Relation.h"

namespace c11litmus {

namespace {

// One event of a candidate execution: an initial store, or one operation
// of a thread. A CAS is a read-modify-write when it succeeds, a read when
// it fails (with its failure order).
struct Event {
  int thread = -1;  // -1: an initial store
  int loc = -1;     // -1: a fence
  bool reads = false, writes = false, fence = false;
  bool undefined_init = false;  // the missing initial store of an uninitialised location
  Order order = Order::NA;
  const Op* op = nullptr;  // null for an initial store
  long init = 0;           // an initial store's value
};

class Enumerator {
 public:
  Enumerator(const Test& t, Model m) : test_(t), model_(m), names_(t.outcome_names()) {
    for (const auto& [name, init] : t.locations) locs_.push_back(name);
    for (size_t th = 0; th < t.threads.size(); th++)
      for (const Op& op : t.threads[th])
        if (op.kind == OpKind::Cas) cas_count_++;
  }

  Result run() {
    if (cas_count_ > 16) throw ParseError("too many CAS operations to enumerate");
    for (uint32_t mask = 0; mask < (1u << cas_count_); mask++) {
      build_events(mask);
      if (events_.size() > Relation::kMaxEvents) throw ParseError("too many events to enumerate");
      choose_mo(0);
    }
    return result_;
  }

 private:
  int loc_index(const std::string& name) const {
    return (int)(std::find(locs_.begin(), locs_.end(), name) - locs_.begin());
  }

  void build_events(uint32_t cas_mask) {
    events_.clear();
    for (size_t l = 0; l < locs_.size(); l++) {
      Event e;
      e.loc = (int)l;
      e.writes = true;
      const auto& init = test_.locations.at(locs_[l]);
      e.undefined_init = !init;
      e.init = init ? *init : kUndefined;
      events_.push_back(e);
    }
    int cas = 0;
    for (size_t th = 0; th < test_.threads.size(); th++)
      for (const Op& op : test_.threads[th]) {
        Event e;
        e.thread = (int)th;
        e.op = &op;
        e.order = op.order;
        switch (op.kind) {
          case OpKind::Load:
            e.reads = true;
            break;
          case OpKind::Store:
            e.writes = true;
            break;
          case OpKind::Xchg:
          case OpKind::FetchAdd:
            e.reads = e.writes = true;
            break;
          case OpKind::Cas:
            e.reads = true;
            e.writes = (cas_mask >> cas++) & 1;
            if (!e.writes) e.order = op.fail_order;
            break;
          case OpKind::Fence:
            e.fence = true;
            break;
        }
        if (!e.fence) e.loc = loc_index(op.loc);
        events_.push_back(e);
      }
    mo_.assign(locs_.size(), {});
    for (size_t e = 0; e < events_.size(); e++)
      if (events_[e].writes && events_[e].thread >= 0) mo_[events_[e].loc].push_back((int)e);
    for (auto& order : mo_) std::sort(order.begin(), order.end());
    rf_.assign(events_.size(), -1);
    value_.assign(events_.size(), 0);
  }

  // Every permutation of each location's stores (after its initial store,
  // event l), then values in mo order; a CAS assumed to succeed must read
  // its expected value from its mo-predecessor.
  void choose_mo(size_t loc) {
    if (loc == locs_.size()) {
      choose_rf(0);
      return;
    }
    std::vector<int>& order = mo_[loc];
    std::sort(order.begin(), order.end());
    do {
      bool ok = true;
      long v = events_[loc].init;
      int prev = (int)loc;
      for (int w : order) {
        const Event& e = events_[w];
        if (e.reads) {  // an RMW reads its immediate mo-predecessor
          rf_[w] = prev;
          value_[w] = v;
          const Op& op = *e.op;
          if (op.kind == OpKind::Cas) {
            if (v == kUndefined || v != op.expected) ok = false;
            v = op.value;
          } else if (op.kind == OpKind::Xchg) {
            v = op.value;
          } else {
            v = v == kUndefined ? kUndefined : v + op.value;
          }
        } else {
          v = e.op->value;
        }
        written_[w] = v;
        prev = w;
      }
      final_[loc] = v;
      if (ok) choose_mo(loc + 1);
    } while (std::next_permutation(order.begin(), order.end()));
  }

  long written(int w) const { return events_[w].thread < 0 ? events_[w].init : written_.at(w); }

  // A source for each plain read (a load or a failed CAS): any store to
  // its location; a failed CAS must read something other than expected.
  void choose_rf(size_t e) {
    if (e == events_.size()) {
      check();
      return;
    }
    const Event& ev = events_[e];
    if (!ev.reads || ev.writes) {
      choose_rf(e + 1);
      return;
    }
    for (size_t w = 0; w < events_.size(); w++) {
      if (!events_[w].writes || events_[w].loc != ev.loc) continue;
      long v = written((int)w);
      if (ev.op->kind == OpKind::Cas && v != kUndefined && v == ev.op->expected) continue;
      rf_[e] = (int)w;
      value_[e] = v;
      choose_rf(e + 1);
    }
  }

  void check() {
    result_.candidates++;
    size_t n = events_.size();
    Relation po(n), rf(n), mo(n), same_loc(n);
    uint64_t W = 0, R = 0, F = 0, U = 0, SC = 0, REL = 0, ACQ = 0, ATOMIC = 0;
    for (size_t a = 0; a < n; a++) {
      const Event& e = events_[a];
      uint64_t bit = uint64_t(1) << a;
      if (e.writes) W |= bit;
      if (e.reads) R |= bit;
      if (e.fence) F |= bit;
      if (e.reads && e.writes) U |= bit;
      if (e.order == Order::SC) SC |= bit;
      if (e.order == Order::Rel || e.order == Order::AcqRel || e.order == Order::SC) REL |= bit;
      if (e.order == Order::Acq || e.order == Order::AcqRel || e.order == Order::SC) ACQ |= bit;
      if (e.thread >= 0 && e.order != Order::NA) ATOMIC |= bit;
      for (size_t b = 0; b < n; b++) {
        const Event& f = events_[b];
        // Events are numbered initial stores first, then in program order.
        if (f.thread >= 0 && (e.thread < 0 || (e.thread == f.thread && a < b))) po.add(a, b);
        if (e.loc >= 0 && e.loc == f.loc) same_loc.add(a, b);
      }
      if (e.reads) rf.add(rf_[a], a);
    }
    for (size_t l = 0; l < locs_.size(); l++) {
      std::vector<int> order = {(int)l};
      order.insert(order.end(), mo_[l].begin(), mo_[l].end());
      for (size_t i = 0; i < order.size(); i++)
        for (size_t j = i + 1; j < order.size(); j++) mo.add(order[i], order[j]);
    }
    Relation fr = rf.inverse().then(mo).minus(Relation::identity(n));
    Relation eco = rf.unite(mo).unite(fr).closure();

    // Atomicity: no store between an RMW and the store it reads, in mo
    // (choose_mo already reads each RMW from its mo-predecessor: this
    // checks that, and keeps the axioms complete here).
    if (fr.then(mo).restrict(U, U).has_reflexive_pair()) return;

    // Release sequences, synchronises-with, happens-before (RC11 §3).
    Relation id = Relation::identity(n);
    Relation rmw_step = rf.restrict(~uint64_t(0), U);
    Relation rs = id.restrict(W, W)
                      .then(id.unite(po.intersect(same_loc)))
                      .then(id.restrict(W & ATOMIC, W & ATOMIC))
                      .then(rmw_step.reflexive_closure());
    Relation release = id.restrict(REL, REL).unite(po.restrict(REL & F, ~uint64_t(0)));
    Relation acquire = id.restrict(ACQ, ACQ).unite(po.restrict(~uint64_t(0), ACQ & F));
    Relation sw = release.then(rs).then(rf).then(id.restrict(R & ATOMIC, R & ATOMIC)).then(acquire);
    Relation hb = po.unite(sw).closure();

    if (model_ == Model::SC) {
      if (!po.unite(rf).unite(mo).unite(fr).acyclic()) return;
    } else {
      // Coherence: hb ; eco? irreflexive.
      if (hb.has_reflexive_pair() || hb.then(eco).has_reflexive_pair()) return;
      // SC: psc_base ∪ psc_F acyclic.
      Relation diff_loc_po = po.minus(same_loc);
      Relation scb = po.unite(diff_loc_po.then(hb).then(diff_loc_po)).unite(hb.intersect(same_loc)).unite(mo).unite(fr);
      Relation sc_fence_hb = id.restrict(SC & F, SC & F).then(hb);
      Relation left = id.restrict(SC, SC).unite(sc_fence_hb);
      Relation right = id.restrict(SC, SC).unite(hb.restrict(~uint64_t(0), SC & F));
      Relation psc_base = left.then(scb).then(right);
      Relation psc_f = hb.unite(hb.then(eco).then(hb)).restrict(SC & F, SC & F);
      if (!psc_base.unite(psc_f).acyclic()) return;
      // No thin air: po ∪ rf acyclic.
      if (model_ == Model::RC11 && !po.unite(rf).acyclic()) return;
    }
    record(hb);
  }

  // Adds a consistent execution (hb its happens-before) to the result.
  void record(const Relation& hb) {
    size_t n = events_.size();
    result_.executions++;
    std::vector<long> values;
    for (const std::string& name : names_) values.push_back(value_of(name));
    result_.allowed.insert(format_outcome(names_, values));
    bool hit = !test_.exists.empty();
    for (const auto& [name, value] : test_.exists) hit = hit && value_of(name) == value;
    result_.exists = result_.exists || hit;
    for (size_t a = 0; a < n; a++)
      if (events_[a].reads && events_[rf_[a]].undefined_init) result_.uninit = true;
    for (size_t a = 0; a < n; a++)
      for (size_t b = a + 1; b < n; b++) {
        const Event &e = events_[a], &f = events_[b];
        if (e.loc < 0 || e.loc != f.loc || !(e.writes || f.writes)) continue;
        if (e.thread < 0 || f.thread < 0 || (e.order != Order::NA && f.order != Order::NA)) continue;
        if (hb.has(a, b) || hb.has(b, a)) continue;
        if (!result_.race)
          result_.race_example = "t" + std::to_string(e.thread) + ":" + to_string(*e.op) + " / t" +
                                 std::to_string(f.thread) + ":" + to_string(*f.op);
        result_.race = true;
      }
  }

  long value_of(const std::string& name) const {
    int l = loc_index(name);
    if (l < (int)locs_.size()) return final_.at(l);
    for (size_t e = 0; e < events_.size(); e++)
      if (events_[e].op && events_[e].op->reg == name) return value_[e];
    return kUndefined;
  }

  const Test& test_;
  Model model_;
  std::vector<std::string> names_;
  std::vector<std::string> locs_;  // location l's initial store is event l
  int cas_count_ = 0;
  std::vector<Event> events_;
  std::vector<std::vector<int>> mo_;  // per location: its stores after the initial one, in mo
  std::vector<int> rf_;               // per reading event: the store it reads
  std::vector<long> value_;           // per reading event: the value it reads
  std::map<int, long> written_;       // per thread store: the value it writes
  std::map<int, long> final_;         // per location: its mo-last store's value
  Result result_;
};

}  // namespace

Result enumerate(const Test& test, Model model) { return Enumerator(test, model).run(); }

}  // namespace c11litmus
