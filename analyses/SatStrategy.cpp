#include "SatStrategy.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <string>

namespace ctrl {

void SatStrategy::fail(const std::string& why) {
  if (!stats_.unsupported.empty()) return;
  stats_.unsupported = why;
  std::fprintf(stderr, "ctrl: --strategy sat stops: %s\n", why.c_str());
}

void SatStrategy::count_goals() {
  // Per read node: the values its location's writers may write (and the
  // initial value), with those it already read.
  const auto& nodes = graph_.nodes();
  std::vector<std::set<uint64_t>> written(graph_.locations().size());
  for (uint32_t l = 0; l < graph_.locations().size(); ++l) {
    const SatLocation& loc = graph_.locations()[l];
    if (loc.init) written[l].insert(*loc.init);
    for (uint32_t w : loc.writers) {
      const SatNode& n = nodes[w];
      if (n.role == SatRole::Write) written[l].insert(SatEventGraph::written_value(n.op));
      if (n.role == SatRole::Rmw)
        for (const auto& e : n.edges) written[l].insert(e.written);
      if (n.role == SatRole::Lock || n.role == SatRole::TryLock) written[l].insert(1);
      if (n.role == SatRole::Unlock) written[l].insert(0);
    }
  }
  stats_.goals_covered = stats_.goals_known = 0;
  for (const SatNode& n : nodes) {
    if (!n.known || !n.reads() || n.role == SatRole::Lock) continue;
    std::set<uint64_t> values = written[n.loc];
    for (const auto& e : n.edges) values.insert(e.key);
    for (uint64_t v : n.spin_keys) values.erase(v);
    stats_.goals_covered += n.edges.size();
    stats_.goals_known += values.size();
  }
}

void SatStrategy::completed(const ExecutionSummary& s) {
  if (!graph_.merge(s.events, s.steps, s.pending, s.npending)) return fail(graph_.why());
  count_goals();
  if (std::getenv("CTRL_SAT_DEBUG") && std::string(std::getenv("CTRL_SAT_DEBUG")) == "graph")
    for (uint32_t i = 0; i < graph_.nodes().size(); ++i) {
      const auto& n = graph_.nodes()[i];
      std::fprintf(stderr, "n%u i%u p%d k%u a%lx s%lx loc%d d%u np%zu st%lx:", i, n.instance, int(n.parent), n.op.kind,
                   (unsigned long)n.op.addr, (unsigned long)n.op.site, int(n.loc), n.depth, n.parents.size(),
                   (unsigned long)(n.role == SatRole::Read ? n.op.value_written : 0));
      for (const auto& e : n.edges)
        std::fprintf(stderr, " %lu->n%u(w%lu)", (unsigned long)e.key, e.child, (unsigned long)e.written);
      std::fprintf(stderr, "%s\n", n.spin_keys.empty() ? "" : " spin");
    }
  // An execution run for a goal that taught nothing: the model and the
  // program disagree (the search would ask the same again).
  if (started_ && graph_.size() == size_before_ && stats_.unsupported.empty())
    fail("an execution planned for a new value showed nothing new");
  size_before_ = graph_.size();
}

std::vector<uint32_t> SatStrategy::schedule(const std::vector<SatStep>& order) {
  const auto& nodes = graph_.nodes();
  const auto& locs = graph_.locations();
  struct Thread {
    bool finished = false;
    uint32_t joined_by = kSatNone;
    std::deque<std::pair<uint32_t, uint64_t>> buffer;  // tso: (store node, value), oldest first
  };
  std::vector<Thread> threads;
  std::map<uint32_t, uint32_t> index;  // instance -> thread
  for (uint32_t i = 0; i < graph_.instances().size(); ++i)
    if (graph_.instances()[i].creator == kSatNone) {
      uint32_t t = graph_.instances()[i].thread;
      index[i] = t;
      if (threads.size() <= t) threads.resize(t + 1);
    }
  std::map<uint32_t, uint64_t> memory;  // location -> value
  std::vector<uint32_t> prefix;
  for (const SatStep& step : order) {
    const SatNode& n = nodes[step.node];
    if (n.role == SatRole::Flush) {
      // A flush instance's root is no step; a flush is its owner's flush
      // actor committing the oldest entry, which must be this store's.
      if (n.store == kSatNone) continue;
      auto t = index.find(graph_.instances()[n.instance].owner);
      if (t == index.end() || threads[t->second].buffer.empty() || threads[t->second].buffer.front().first != n.store) {
        ++stats_.deviations;
        break;
      }
      memory[n.loc] = threads[t->second].buffer.front().second;
      threads[t->second].buffer.pop_front();
      prefix.push_back(shm::kFlushActorBase + t->second);
      continue;
    }
    auto t = index.find(n.instance);
    bool ok = t != index.end();
    // tso: an operation that drains waits for an empty buffer (the model
    // orders it after the flushes).
    if (ok && n.drains && !threads[t->second].buffer.empty()) ok = false;
    std::optional<uint64_t> value;
    if (ok && n.loc != kSatNone) {
      auto m = memory.find(n.loc);
      if (m != memory.end())
        value = m->second;
      else
        value = locs[n.loc].init;
      // tso: its own newest buffered store there (forwarding).
      for (const auto& [store, v] : threads[t->second].buffer)
        if (nodes[store].loc == n.loc) value = v;
    }
    if (ok && n.role == SatRole::Lock) ok = value == 0u;
    if (ok && n.role == SatRole::TryLock && !step.goal) ok = value == std::optional<uint64_t>(step.key == 0 ? 0 : 1);
    if (ok && n.role == SatRole::Join) {
      auto j = index.find(n.target);
      ok = j != index.end() && threads[j->second].finished;
    }
    if (ok && (n.role == SatRole::Read || n.role == SatRole::Rmw) && !step.goal) ok = value == step.key;
    if (!ok) {
      ++stats_.deviations;
      break;
    }
    uint32_t me = t->second;
    prefix.push_back(me);
    if (step.goal) break;
    if (n.buffered) {
      threads[me].buffer.emplace_back(
          step.node, n.role == SatRole::Rmw ? n.edge(step.key)->written : SatEventGraph::written_value(n.op));
      continue;
    }
    switch (n.role) {
      case SatRole::Write:
        memory[n.loc] = SatEventGraph::written_value(n.op);
        break;
      case SatRole::Rmw:
        memory[n.loc] = n.edge(step.key)->written;
        break;
      case SatRole::Lock:
        memory[n.loc] = 1;
        break;
      case SatRole::TryLock:
        if (step.key == 0) memory[n.loc] = 1;
        break;
      case SatRole::Unlock:
        memory[n.loc] = 0;
        break;
      case SatRole::Exit:
        threads[me].finished = true;
        break;
      case SatRole::Join:
        threads[index[n.target]].joined_by = me;
        break;
      case SatRole::Create: {
        // The agent's numbering (ExecutionModel::add_thread): the lowest
        // index of a finished thread the creator joined, else a new one.
        uint32_t child = kSatNone;
        for (uint32_t u = 0; u < threads.size() && child == kSatNone; ++u)
          if (u != me && threads[u].finished && threads[u].joined_by == me) child = u;
        if (child == kSatNone) {
          child = uint32_t(threads.size());
          threads.emplace_back();
        }
        threads[child] = Thread{};
        for (auto it = index.begin(); it != index.end();) it = it->second == child ? index.erase(it) : std::next(it);
        index[n.target] = child;
        break;
      }
      default:
        break;
    }
  }
  return prefix;
}

std::optional<ExecutionPlan> SatStrategy::next() {
  if (!stats_.unsupported.empty() || complete_ || stopped_) return std::nullopt;
  ExecutionPlan plan = fixed_plan();
  // Reads tell their state, and histories that reach one state merge
  // (SatEventGraph.h; under tso only after a drain); CTRL_SAT_MERGE=0 keeps a
  // trie per thread instance instead. The default since session 23: with
  // it Dekker finishes sizes the trie does not, and the relaxed Dijkstra
  // at 2 x 2 ends behaviour-complete (docs/PERFORMANCE.md, "seventh piece").
  const char* merge = std::getenv("CTRL_SAT_MERGE");
  plan.read_states = !(merge && std::string(merge) == "0");
  if (!started_) {
    started_ = true;
    return plan;
  }
  auto t0 = std::chrono::steady_clock::now();
  SatAnswer answer = encoder_.solve([this] { return stop_requested_now(); });
  SolverRound round;
  round.vars = answer.vars;
  round.clauses = answer.clauses;
  round.goals = answer.goals;
  round.refinements = answer.refinements;
  round.between = answer.between_added;
  round.encode_seconds = answer.encode_seconds;
  round.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  round.sat = answer.result == SatSolver::Result::Sat;
  stats_.rounds.push_back(round);
  if (answer.result == SatSolver::Result::Unsat) {
    complete_ = true;
    return std::nullopt;
  }
  if (answer.result == SatSolver::Result::Stopped) {
    stopped_ = true;
    return std::nullopt;
  }
  std::vector<uint32_t> prefix = schedule(answer.order);
  if (std::getenv("CTRL_SAT_DEBUG")) {
    for (const auto& st : answer.order) {
      const auto& n = graph_.nodes()[st.node];
      std::fprintf(stderr, "  node %u inst %u depth %u kind %u addr %lx key %lu%s%s\n", st.node, n.instance, n.depth,
                   n.op.kind, (unsigned long)n.op.addr, (unsigned long)st.key, st.goal ? " GOAL" : "",
                   n.spin_keys.empty() ? "" : " spin");
    }
    std::fprintf(stderr, "prefix:");
    for (auto t : prefix) std::fprintf(stderr, " %u", t);
    std::fprintf(stderr, "\n");
  }
  plan.prefix.insert(plan.prefix.end(), prefix.begin(), prefix.end());
  return plan;
}

}  // namespace ctrl
