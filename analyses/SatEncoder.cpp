#include "SatEncoder.h"

#include <algorithm>
#include <chrono>

namespace ctrl {

SatEncoder::SatEncoder(const SatEventGraph& graph, SatSolver& solver, std::vector<SatCycle>& cycles)
    : g_(graph), solver_(solver), cycles_(cycles) {}

int SatEncoder::x(uint32_t n) const { return x_[n] ? x_[n] : kFalse; }

int SatEncoder::order(uint32_t a, uint32_t b) {
  const auto& nodes = g_.nodes();
  if (nodes[a].instance == nodes[b].instance) {
    if (g_.before_in_thread(a, b)) return kTrue;
    if (g_.before_in_thread(b, a)) return kFalse;
    return 0;
  }
  auto key = std::minmax(a, b);
  auto [it, fresh] = o_.try_emplace({key.first, key.second}, 0);
  if (fresh) it->second = solver_.new_var();
  return a < b ? it->second : -it->second;
}

void SatEncoder::clause(std::vector<int> lits) {
  std::vector<int> out;
  for (int l : lits) {
    if (l == 0) return;  // nodes of one thread on different paths: never both run
    if (l == kTrue) return;
    if (l == kFalse) continue;
    out.push_back(l);
  }
  solver_.add_clause(out);
}

int SatEncoder::writes_lit(uint32_t s) const {
  const SatNode& n = g_.nodes()[s];
  if (n.role != SatRole::TryLock) return x(s);
  for (size_t e = 0; e < n.edges.size(); ++e)
    if (n.edges[e].key == 0) return c_[s][e];
  return kFalse;
}

std::vector<std::pair<uint64_t, int>> SatEncoder::written_values(uint32_t s) const {
  const SatNode& n = g_.nodes()[s];
  switch (n.role) {
    case SatRole::Write:
      return {{SatEventGraph::written_value(n.op), kTrue}};
    case SatRole::Rmw: {
      std::vector<std::pair<uint64_t, int>> out;
      for (size_t e = 0; e < n.edges.size(); ++e) out.emplace_back(n.edges[e].written, c_[s][e]);
      return out;
    }
    case SatRole::Lock:
      return {{1, kTrue}};
    case SatRole::TryLock:
      return {{1, writes_lit(s)}};
    case SatRole::Unlock:
      return {{0, kTrue}};
    default:
      return {};
  }
}

void SatEncoder::encode_read(uint32_t n) {
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[n];
  const SatLocation& loc = g_.locations()[node.loc];
  auto edge_lit = [&](uint64_t w) -> int {
    for (size_t e = 0; e < node.edges.size(); ++e)
      if (node.edges[e].key == w) return c_[n][e];
    return 0;
  };
  // What reading value w from a writer whose literal for it is `lit` means.
  auto reads_value = [&](int r, uint64_t w, int lit) {
    if (node.spins_on(w)) return clause({-r, -lit});  // a repeat: the thread does not move
    int c = edge_lit(w);
    if (!c && node.role == SatRole::Lock) return;  // only seen parked: it has no edge yet
    clause({-r, -lit, c ? c : new_[n]});
  };
  std::vector<int> any{-x(n)};
  // The initial value.
  {
    int r = solver_.new_var();
    any.push_back(r);
    clause({-r, x(n)});
    if (!loc.init)
      clause({-r, new_[n]});
    else
      reads_value(r, *loc.init, kTrue);
    for (uint32_t c : loc.writers)
      if (c != n) clause({-r, -writes_lit(c), -order(c, n)});
  }
  for (uint32_t s : loc.writers) {
    // A read among thousands of writers emits millions of clauses: polled.
    if (stopped_ || (stop_ && (*stop_)())) {
      stopped_ = true;
      return;
    }
    if (s == n || !nodes[s].known) continue;
    if (nodes[s].instance == node.instance && !g_.before_in_thread(s, n)) continue;
    auto values = written_values(s);
    // A lock waits for a free mutex: it never reads a held one.
    if (node.role == SatRole::Lock && values.size() == 1 && values[0].first != 0) continue;
    int r = solver_.new_var();
    any.push_back(r);
    clause({-r, x(n)});
    clause({-r, writes_lit(s)});
    clause({-r, order(s, n)});
    if (nodes[s].role == SatRole::Rmw) clause({-r, -new_[s]});  // what a new read writes is unknown
    for (auto [w, lit] : values) reads_value(r, w, lit);
    for (uint32_t c : loc.writers) {
      if (c == n || c == s) continue;
      if (nodes[c].instance == node.instance && order(c, n) == 0) continue;
      if (nodes[c].instance == nodes[s].instance && order(s, c) == 0) continue;
      clause({-r, -writes_lit(c), -order(s, c), -order(c, n)});
    }
  }
  clause(any);
}

void SatEncoder::encode_spin(uint32_t n) {
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[n];
  if (!node.spins) return;       // the agent never saw it repeat a read in the same state
  std::vector<uint32_t> window;  // the thread's reads since the one n repeats
  std::vector<uint32_t> stores;  // its stores since then: no progress if each stored what memory held
  bool repeats = false;
  for (uint32_t child = n, a = node.parent; a != kSatNone && !repeats; child = a, a = nodes[a].parent) {
    const SatNode& an = nodes[a];
    const SatEdge* via = nullptr;
    for (const auto& e : an.edges)
      if (e.child == child) via = &e;
    // A read-modify-write that left memory as it was (a failed CAS) reads only.
    bool reads_only = an.role == SatRole::Read || (an.role == SatRole::Rmw && via && via->written == via->key);
    if (!reads_only) {
      if (an.role == SatRole::Other) continue;  // start, yield, fence
      if (an.role != SatRole::Write) return;
      stores.push_back(a);
      continue;
    }
    window.push_back(a);
    repeats = an.op.kind == node.op.kind && an.op.site == node.op.site && an.op.addr == node.op.addr;
  }
  if (!repeats) return;
  std::vector<int> written_since{-x(n)};
  for (uint32_t w : stores) written_since.push_back(-unchanged(w));
  for (uint32_t k : window)
    for (uint32_t w : g_.locations()[nodes[k].loc].writers) {
      if (w == k || w == n) continue;
      int after = order(k, w), before = order(w, n);
      if (after == 0 || before == 0) continue;
      int z = solver_.new_var();
      clause({-z, writes_lit(w)});
      if (nodes[w].role == SatRole::Rmw) {
        // Only one that changed memory wakes a spinner (a failed CAS does not).
        std::vector<int> changed{-z};
        for (size_t e = 0; e < nodes[w].edges.size(); ++e)
          if (nodes[w].edges[e].written != nodes[w].edges[e].key) changed.push_back(c_[w][e]);
        clause(changed);
      }
      clause({-z, after});
      clause({-z, before});
      written_since.push_back(z);
    }
  clause(written_since);
}

int SatEncoder::unchanged(uint32_t w) {
  auto [it, fresh] = unchanged_.try_emplace(w, 0);
  if (!fresh) return it->second;
  const auto& nodes = g_.nodes();
  const SatNode& node = nodes[w];
  const SatLocation& loc = g_.locations()[node.loc];
  uint64_t value = SatEventGraph::written_value(node.op);
  int u = it->second = solver_.new_var();
  // p: the value w overwrites comes from that source (the initial value or a
  // writer before it with no writer between); when it is w's own value, u.
  std::vector<int> some{-x(w)};
  auto source = [&](uint32_t s, const std::vector<std::pair<uint64_t, int>>& values) {
    int p = solver_.new_var();
    some.push_back(p);
    clause({-p, x(w)});
    if (s != kSatNone) clause({-p, writes_lit(s)}), clause({-p, order(s, w)});
    for (uint32_t c : loc.writers) {
      if (c == w || c == s || !nodes[c].known) continue;
      if (nodes[c].instance == node.instance && order(c, w) == 0) continue;
      if (s != kSatNone && nodes[c].instance == nodes[s].instance && order(s, c) == 0) continue;
      clause({-p, -writes_lit(c), s == kSatNone ? kFalse : -order(s, c), -order(c, w)});
    }
    for (auto [v, lit] : values)
      if (v == value) clause({-p, -lit, u});
  };
  // An initial value never read is unknown: the store is taken to change it.
  std::vector<std::pair<uint64_t, int>> init;
  if (loc.init) init.emplace_back(*loc.init, kTrue);
  source(kSatNone, init);
  for (uint32_t s : loc.writers) {
    if (s == w || !nodes[s].known) continue;
    if (nodes[s].instance == node.instance && !g_.before_in_thread(s, w)) continue;
    source(s, written_values(s));
  }
  clause(some);
  return u;
}

bool SatEncoder::encode(const std::function<bool()>& stop) {
  stop_ = stop ? &stop : nullptr;
  const auto& nodes = g_.nodes();
  x_.assign(nodes.size(), 0);
  new_.assign(nodes.size(), kFalse);
  c_.assign(nodes.size(), {});
  goal_.assign(nodes.size(), 0);
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    if (!nodes[n].known) continue;
    x_[n] = solver_.new_var();
    if (nodes[n].reads()) {
      for (size_t e = 0; e < nodes[n].edges.size(); ++e) c_[n].push_back(solver_.new_var());
      if (nodes[n].role != SatRole::Lock) new_[n] = solver_.new_var();
    }
    goal_[n] = nodes[n].edges.empty() ? x_[n] : new_[n] != kFalse ? new_[n] : 0;
    if (goal_[n]) goals_.push_back(goal_[n]);
  }
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    const SatNode& node = nodes[n];
    if (!node.known) continue;
    // Large graphs take long to encode: Ctrl-C and the time limit are polled.
    if (stop && stop()) return false;
    if (node.parent != kSatNone) {
      const SatNode& p = nodes[node.parent];
      int via = x(node.parent);
      if (p.reads())
        for (size_t e = 0; e < p.edges.size(); ++e)
          if (p.edges[e].child == n) via = c_[node.parent][e];
      clause({-x(n), via});
    } else if (g_.instances()[node.instance].creator != kSatNone) {
      clause({-x(n), x(g_.instances()[node.instance].creator)});
    }
    // A lock only seen parked reads the free mutex and has no choice to make.
    bool parked_lock = node.role == SatRole::Lock && node.edges.empty();
    if (node.reads() && !parked_lock) {
      std::vector<int> one{-x(n)};
      std::vector<int> choices = c_[n];
      if (new_[n] != kFalse) choices.push_back(new_[n]);
      for (size_t i = 0; i < choices.size(); ++i) {
        clause({-choices[i], x(n)});
        one.push_back(choices[i]);
        for (size_t j = i + 1; j < choices.size(); ++j) clause({-choices[i], -choices[j]});
      }
      clause(one);
    }
    if (node.reads()) encode_read(n);
    if (stopped_) return false;
    if (node.role == SatRole::Read || node.role == SatRole::Rmw) encode_spin(n);
    if (node.role == SatRole::Create && node.target != kSatNone)
      for (uint32_t m : g_.instances()[node.target].nodes) clause({order(n, m)});
    if (node.role == SatRole::Join) {
      std::vector<int> exits{-x(n)};
      for (uint32_t m : g_.instances()[node.target].nodes) {
        clause({order(m, n)});
        if (nodes[m].role == SatRole::Exit) exits.push_back(x(m));
      }
      clause(exits);
    }
    if (node.role == SatRole::ProcessExit)
      for (uint32_t m = 0; m < nodes.size(); ++m)
        if (nodes[m].known && nodes[m].instance != node.instance) clause({-x(n), -x(m), order(m, n)});
  }
  // Transitivity between two thread instances, eagerly: whatever runs
  // before node b of another instance runs before b's children, and the
  // same seen from b. Each instance's nodes on one path are a chain, and for
  // two chains these binary clauses are the whole of transitivity (the set
  // of b's after a is a suffix that shrinks as a moves on), quadratic where
  // the triangles are cubic; only cycles through three or more instances
  // are left to the lazy refinement below.
  const auto& instances = g_.instances();
  for (uint32_t i = 0; i < instances.size(); ++i)
    for (uint32_t j = 0; j < instances.size(); ++j) {
      if (i == j) continue;
      for (uint32_t a : instances[i].nodes) {
        if (stop && stop()) return false;
        for (uint32_t b : instances[j].nodes)
          for (const SatEdge& e : nodes[b].edges)
            if (e.child < nodes.size() && nodes[e.child].known) clause({-order(a, b), order(a, e.child)});
      }
    }
  for (const SatCycle& cycle : cycles_) {
    std::vector<int> lits;
    for (auto [a, b] : cycle) lits.push_back(-order(a, b));
    clause(lits);
  }
  return true;
}

SatAnswer SatEncoder::solve(const std::function<bool()>& stop) {
  SatAnswer answer;
  auto t0 = std::chrono::steady_clock::now();
  if (!encode(stop)) {
    answer.result = SatSolver::Result::Stopped;
    return answer;
  }
  answer.encode_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  answer.goals = goals_.size();
  const auto& nodes = g_.nodes();
  int act = solver_.new_var();
  std::vector<int> any_goal{-act};
  any_goal.insert(any_goal.end(), goals_.begin(), goals_.end());
  clause(any_goal);
  for (;;) {
    answer.vars = solver_.vars();
    answer.clauses = solver_.clauses();
    int assumption[] = {act};
    answer.result = goals_.empty() ? SatSolver::Result::Unsat : solver_.solve(assumption, stop);
    if (answer.result != SatSolver::Result::Sat) return answer;
    // The nodes the model runs, and its order on them.
    std::vector<char> runs(nodes.size(), 0);
    std::vector<uint32_t> ran;
    for (uint32_t n = 0; n < nodes.size(); ++n)
      if (x_[n] && solver_.value(x_[n])) runs[n] = 1, ran.push_back(n);
    std::vector<std::vector<uint32_t>> succ(nodes.size()), pred(nodes.size());
    auto edge = [&](uint32_t a, uint32_t b) { succ[a].push_back(b), pred[b].push_back(a); };
    for (uint32_t n : ran)
      if (nodes[n].parent != kSatNone) edge(nodes[n].parent, n);
    for (const auto& [pair, var] : o_)
      if (runs[pair.first] && runs[pair.second]) {
        if (solver_.value(var))
          edge(pair.first, pair.second);
        else
          edge(pair.second, pair.first);
      }
    std::vector<uint32_t> indeg(nodes.size(), 0), ready, sorted;
    for (uint32_t n : ran) indeg[n] = uint32_t(pred[n].size());
    for (uint32_t n : ran)
      if (indeg[n] == 0) ready.push_back(n);
    uint32_t last_instance = kSatNone;
    while (!ready.empty()) {
      // Stay with the thread that ran last when it can go on: fewer switches.
      size_t pick = 0;
      for (size_t i = 0; i < ready.size(); ++i)
        if (nodes[ready[i]].instance == last_instance) pick = i;
      uint32_t n = ready[pick];
      ready.erase(ready.begin() + long(pick));
      sorted.push_back(n);
      last_instance = nodes[n].instance;
      for (uint32_t m : succ[n])
        if (--indeg[m] == 0) ready.push_back(m);
    }
    if (sorted.size() == ran.size()) {
      for (uint32_t n : sorted) {
        SatStep step;
        step.node = n;
        step.goal = goal_[n] && solver_.value(goal_[n]);
        if (nodes[n].reads()) {
          for (size_t e = 0; e < nodes[n].edges.size(); ++e)
            if (solver_.value(c_[n][e])) step.key = nodes[n].edges[e].key;
        }
        answer.order.push_back(step);
        if (step.goal) break;
      }
      return answer;
    }
    // A cycle among the nodes left: walk back along edges from nodes left.
    std::vector<int> seen(nodes.size(), -1);
    std::vector<uint32_t> walk;
    uint32_t n = kSatNone;
    for (uint32_t m : ran)
      if (indeg[m] > 0) n = m;
    while (seen[n] < 0) {
      seen[n] = int(walk.size());
      walk.push_back(n);
      uint32_t back = kSatNone;
      for (uint32_t p : pred[n])
        if (indeg[p] > 0) back = p;
      n = back;
    }
    // walk[seen[n]..] is the cycle backwards: each is preceded by the next.
    SatCycle cycle;
    for (size_t i = size_t(seen[n]); i < walk.size(); ++i) {
      uint32_t later = walk[i], earlier = i + 1 < walk.size() ? walk[i + 1] : walk[size_t(seen[n])];
      cycle.emplace_back(earlier, later);
    }
    std::vector<int> lits;
    for (auto [a, b] : cycle) lits.push_back(-order(a, b));
    clause(lits);
    cycles_.push_back(std::move(cycle));
    ++answer.refinements;
  }
}

}  // namespace ctrl
