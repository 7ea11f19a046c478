#include "ra_flow_enumerate.h"

#include <bitset>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <unordered_set>

namespace ra_oracle {

namespace {

constexpr int kMaxNodes = 255;  // events of one graph, plus the initial write
using Bits = std::bitset<kMaxNodes + 1>;

struct Ev {
  int thread = 0;
  enum Kind { Read, Write, Rmw } kind = Read;
  int var = 0;
  int wval = 0;  // writes
  int rf = -1;   // reads: the event read, -1 the initial write
  bool reads() const { return kind != Write; }
  bool writes() const { return kind != Read; }
};

struct ThreadState {
  int pc = 0;
  std::vector<int> regs = std::vector<int>(4, 0);
  std::vector<int> events;  // in po
};

struct State {
  std::vector<Ev> ev;
  std::vector<ThreadState> th;
};

// Runs t's local instructions (jumps) up to its next shared one or its end.
const Instr& settle(const FlowProgram& p, ThreadState& t, int thread) {
  for (int guard = 0;; guard++) {
    if (guard > 100000) throw std::runtime_error("thread " + std::to_string(thread) + " loops without events");
    const Instr& in = p.threads[size_t(thread)][size_t(t.pc)];
    if (in.op == Instr::JumpLe) {
      t.pc = t.regs[size_t(in.reg)] <= in.value ? in.target : t.pc + 1;
    } else if (in.op == Instr::JumpEq) {
      t.pc = t.regs[size_t(in.reg)] == in.value ? in.target : t.pc + 1;
    } else {
      return in;
    }
  }
}

// Whether location v of s admits a co_v under which po ∪ rf ∪ co_v ∪ fr_v
// is acyclic (every other location is unchanged by the event just added:
// a new event has no outgoing po or rf edge, so it closes no cycle there).
bool location_consistent(const State& s, int v) {
  const std::vector<Ev>& ev = s.ev;
  int n = int(ev.size());
  if (n > kMaxNodes - 1) throw std::runtime_error("graph too large for the oracle");
  int init = n;  // node of v's initial write
  auto node = [&](int w) { return w < 0 ? init : w; };
  // hb = (po ∪ rf)+ (the initial writes of other locations reach nothing
  // that matters: they have no predecessors).
  std::vector<Bits> succ(size_t(n) + 1);
  for (const ThreadState& t : s.th)
    for (size_t k = 1; k < t.events.size(); k++) succ[size_t(t.events[k - 1])].set(size_t(t.events[k]));
  for (int r = 0; r < n; r++)
    if (ev[size_t(r)].reads()) {
      if (ev[size_t(r)].rf >= 0)
        succ[size_t(ev[size_t(r)].rf)].set(size_t(r));
      else if (ev[size_t(r)].var == v)
        succ[size_t(init)].set(size_t(r));
    }
  // Events were added in an order extending po ∪ rf: close backwards.
  std::vector<Bits> reach = succ;  // strict successors
  for (int a = n; a >= 0; a--) {
    for (int b = 0; b < n; b++)
      if (succ[size_t(a)][size_t(b)]) reach[size_t(a)] |= reach[size_t(b)];
  }
  // The init node is not in insertion order; it only has rf successors,
  // which are events, closed above.
  {
    Bits r = succ[size_t(init)];
    for (int b = 0; b < n; b++)
      if (succ[size_t(init)][size_t(b)]) r |= reach[size_t(b)];
    reach[size_t(init)] = r;
  }
  std::vector<int> writes;
  for (int w = 0; w < n; w++)
    if (ev[size_t(w)].writes() && ev[size_t(w)].var == v) writes.push_back(w);
  // A write read by two read-modify-writes: no co can place both after it.
  std::vector<int> rmw_reader(size_t(n) + 1, -1);
  for (int w : writes)
    if (ev[size_t(w)].kind == Ev::Rmw) {
      int src = node(ev[size_t(w)].rf);
      if (rmw_reader[size_t(src)] >= 0) return false;
      rmw_reader[size_t(src)] = w;
    }
  std::vector<int> order{init};
  std::vector<bool> placed(size_t(n) + 1, false);
  placed[size_t(init)] = true;
  // The location's events (its initial write, writes and reads), numbered
  // locally: a cycle of hb ∪ co_v ∪ fr_v leaves hb only by co_v and fr_v
  // edges, which join these, so it is a cycle of their graph with hb as
  // reachability between them.
  std::vector<int> local;
  std::vector<int> local_of(size_t(n) + 1, -1);
  local.push_back(init);
  for (int e = 0; e < n; e++)
    if (ev[size_t(e)].var == v) local.push_back(e);
  if (local.size() > 64) throw std::runtime_error("too many accesses to one location for the oracle");
  for (size_t k = 0; k < local.size(); k++) local_of[size_t(local[k])] = int(k);
  std::vector<uint64_t> hb_local(local.size(), 0);
  for (size_t a = 0; a < local.size(); a++)
    for (size_t b = 0; b < local.size(); b++)
      if (reach[size_t(local[a])][size_t(local[b])]) hb_local[a] |= uint64_t(1) << b;
  // Whether hb ∪ co ∪ fr is acyclic with the edges every completion of the
  // partial order `order` has: co along it and from it to every write not
  // placed yet; fr from a read of a placed write to the writes after it,
  // placed or not. Complete, this is the axiom itself; partial, a cycle
  // rules out every completion.
  auto acyclic = [&]() {
    size_t k = local.size();
    std::vector<int> pos(k, -1);
    for (size_t i = 0; i < order.size(); i++) pos[size_t(local_of[size_t(order[i])])] = int(i);
    uint64_t unplaced = 0;
    for (int w : writes)
      if (!placed[size_t(w)]) unplaced |= uint64_t(1) << local_of[size_t(w)];
    std::vector<uint64_t> adj = hb_local;
    for (size_t i = 0; i + 1 < order.size(); i++)
      adj[size_t(local_of[size_t(order[i])])] |= uint64_t(1) << local_of[size_t(order[i + 1])];
    adj[size_t(local_of[size_t(order.back())])] |= unplaced;
    for (size_t r = 1; r < k; r++) {
      const Ev& e = ev[size_t(local[r])];
      if (!e.reads()) continue;
      int at = pos[size_t(local_of[size_t(node(e.rf))])];
      if (at < 0) continue;
      uint64_t later = unplaced;
      for (size_t i = size_t(at) + 1; i < order.size(); i++) later |= uint64_t(1) << local_of[size_t(order[i])];
      adj[r] |= later & ~(uint64_t(1) << r);
    }
    // Peel nodes without predecessors among the remaining ones.
    std::vector<uint64_t> pred(k, 0);
    for (size_t a = 0; a < k; a++)
      for (size_t b = 0; b < k; b++)
        if (adj[a] >> b & 1) pred[b] |= uint64_t(1) << a;
    uint64_t left = k == 64 ? ~uint64_t(0) : (uint64_t(1) << k) - 1;
    for (bool progress = true; progress && left;) {
      progress = false;
      for (size_t a = 0; a < k; a++)
        if ((left >> a & 1) && !(pred[a] & left)) {
          left &= ~(uint64_t(1) << a);
          progress = true;
        }
    }
    return left == 0;
  };
  std::function<bool()> place = [&]() -> bool {
    if (!acyclic()) return false;
    if (order.size() == writes.size() + 1) return true;
    int last = order.back();
    int forced = rmw_reader[size_t(last)];
    for (int w : writes) {
      if (placed[size_t(w)]) continue;
      if (forced >= 0 && w != forced) continue;
      if (ev[size_t(w)].kind == Ev::Rmw && node(ev[size_t(w)].rf) != last) continue;
      // Every write hb-before w is placed (co must agree with hb).
      bool ok = true;
      for (int u : writes)
        if (!placed[size_t(u)] && u != w && reach[size_t(u)][size_t(w)]) ok = false;
      if (!ok) continue;
      placed[size_t(w)] = true;
      order.push_back(w);
      if (place()) return true;
      order.pop_back();
      placed[size_t(w)] = false;
    }
    return false;
  };
  return place();
}

// The source of an event in a graph-independent name: (thread, po index).
int64_t name_of(const State& s, int e) {
  if (e < 0) return -1;
  const ThreadState& t = s.th[size_t(s.ev[size_t(e)].thread)];
  for (size_t k = 0; k < t.events.size(); k++)
    if (t.events[k] == e) return int64_t(s.ev[size_t(e)].thread) << 20 | int64_t(k);
  return -2;
}

std::string key_of(const State& s) {
  std::string key;
  for (const ThreadState& t : s.th) {
    key += "|" + std::to_string(t.events.size()) + ":";
    for (int e : t.events)
      if (s.ev[size_t(e)].reads()) key += std::to_string(name_of(s, s.ev[size_t(e)].rf)) + ",";
  }
  return key;
}

}  // namespace

FlowCount count_flow_weak_traces(const FlowProgram& p) {
  FlowCount count;
  std::unordered_set<std::string> seen;
  State start;
  start.th.resize(p.threads.size());
  std::function<void(State&)> visit = [&](State& s) {
    if (!seen.insert(key_of(s)).second) return;
    count.graphs++;
    bool all_done = true;
    for (size_t t = 0; t < s.th.size(); t++) {
      ThreadState saved = s.th[t];
      const Instr& in = settle(p, s.th[t], int(t));
      if (in.op == Instr::End) continue;
      all_done = false;
      auto add = [&](Ev e, int reg) {
        State next = s;
        int id = int(next.ev.size());
        if (e.reads() && reg >= 0) next.th[t].regs[size_t(reg)] = e.rf < 0 ? 0 : next.ev[size_t(e.rf)].wval;
        if (e.kind == Ev::Rmw) e.wval = 1;
        next.ev.push_back(e);
        next.th[t].events.push_back(id);
        next.th[t].pc++;
        if (location_consistent(next, e.var)) visit(next);
      };
      Ev e;
      e.thread = int(t);
      e.var = in.var;
      const ThreadState& now = s.th[t];
      switch (in.op) {
        case Instr::Load:
        case Instr::Lock: {
          e.kind = in.op == Instr::Load ? Ev::Read : Ev::Rmw;
          std::vector<int> sources{-1};
          for (int w = 0; w < int(s.ev.size()); w++)
            if (s.ev[size_t(w)].writes() && s.ev[size_t(w)].var == in.var) sources.push_back(w);
          for (int w : sources) {
            // A lock reads an unlocked write (the initial one or an unlock).
            if (in.op == Instr::Lock && w >= 0 && s.ev[size_t(w)].wval != 0) continue;
            e.rf = w;
            add(e, in.op == Instr::Load ? in.reg : -1);
          }
          break;
        }
        case Instr::Store:
        case Instr::StoreReg:
        case Instr::Unlock:
          e.kind = Ev::Write;
          e.wval = in.op == Instr::Store      ? in.value
                   : in.op == Instr::StoreReg ? now.regs[size_t(in.reg)] + in.value
                                              : 0;
          add(e, -1);
          break;
        default:
          break;
      }
      s.th[t] = saved;
    }
    if (all_done) count.traces++;
  };
  visit(start);
  return count;
}

FlowProgram exponential_bug(int n) {
  const int x = 0, y = 1, m = 2;
  FlowProgram p;
  p.vars = 3;
  p.threads.resize(3);
  auto op = [](Instr::Op o, int var = 0, int reg = 0, int value = 0) {
    Instr i;
    i.op = o;
    i.var = var;
    i.reg = reg;
    i.value = value;
    return i;
  };
  // The first thread: twice, under the mutex, x := 1 then n times y := 1.
  std::vector<Instr>& a = p.threads[0];
  for (int round = 0; round < 2; round++) {
    a.push_back(op(Instr::Lock, m));
    a.push_back(op(Instr::Store, x, 0, 1));
    for (int i = 0; i < n; i++) a.push_back(op(Instr::Store, y, 0, 1));
    a.push_back(op(Instr::Unlock, m));
  }
  a.push_back(op(Instr::End));
  // The second: twice, x := 0 under the mutex; if x > 0, y := y + 1, x := 2.
  std::vector<Instr>& b = p.threads[1];
  for (int round = 0; round < 2; round++) {
    b.push_back(op(Instr::Lock, m));
    b.push_back(op(Instr::Store, x, 0, 0));
    b.push_back(op(Instr::Unlock, m));
    b.push_back(op(Instr::Load, x, 0));
    Instr skip = op(Instr::JumpLe, 0, 0, 0);
    skip.target = int(b.size()) + 4;
    b.push_back(skip);
    b.push_back(op(Instr::Load, y, 1));
    b.push_back(op(Instr::StoreReg, y, 1, 1));
    b.push_back(op(Instr::Store, x, 0, 2));
  }
  b.push_back(op(Instr::End));
  // The third: twice, if x > 1: return if y == 3, else y := 2.
  std::vector<Instr>& c = p.threads[2];
  std::vector<size_t> to_end;
  for (int round = 0; round < 2; round++) {
    c.push_back(op(Instr::Load, x, 0));
    Instr skip = op(Instr::JumpLe, 0, 0, 1);
    skip.target = int(c.size()) + 4;
    c.push_back(skip);
    c.push_back(op(Instr::Load, y, 1));
    to_end.push_back(c.size());
    c.push_back(op(Instr::JumpEq, 0, 1, 3));
    c.push_back(op(Instr::Store, y, 0, 2));
  }
  for (size_t k : to_end) c[k].target = int(c.size());
  c.push_back(op(Instr::End));
  return p;
}

}  // namespace ra_oracle
