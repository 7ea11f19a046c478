#include "ReadsFromStrategy.h"

#include <cstdio>
#include <utility>

#include "Dependence.h"
#include "DporEvents.h"
#include "Operation.h"

namespace ctrl {

namespace {

constexpr uint64_t kInitWriter = UINT64_MAX;
constexpr uint32_t kNoNode = UINT32_MAX;

uint64_t event_id(uint32_t thread, uint32_t index) { return (uint64_t(thread) << 32) | index; }

// splitmix64's finaliser: the per-read terms are summed, so each must look
// random (dpor::mix alone is close to linear on event ids and collided).
uint64_t scramble(uint64_t z) {
  z ^= z >> 30;
  z *= 0xbf58476d1ce4e5b9ull;
  z ^= z >> 27;
  z *= 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
uint64_t combine(uint64_t h, uint64_t v) { return scramble(h ^ scramble(v + 0x9E3779B97F4A7C15ull)); }

bool memory_kind(OpKind k) { return op_reads_memory(k) || op_writes_memory(k); }

// Why the machine cannot follow `e` (empty: it can).
std::string unsupported_op(const shm::Event& e, bool tso) {
  auto k = OpKind(e.kind);
  if (e.thread >= shm::kFlushActorBase) return tso && k == OpKind::Flush ? "" : "store buffer flushes";
  if (!tso && (e.flags & (shm::kBuffered | shm::kForwarded))) return "store buffers";
  if (memory_kind(k)) {
    if (!dpor::size_mask(e.size)) return std::string(op_name(k)) + " of " + std::to_string(e.size) + " bytes";
    if (k == OpKind::Load && e.aux) return "string instructions";
    if (k == OpKind::Store && (e.flags & shm::kInstruction) && e.aux) return "string instructions";
    return "";
  }
  switch (k) {
    case OpKind::ThreadStart:
    case OpKind::ThreadCreate:
    case OpKind::ThreadJoin:
    case OpKind::ThreadExit:
    case OpKind::ThreadDetach:
    case OpKind::MutexLock:
    case OpKind::MutexTryLock:
    case OpKind::MutexUnlock:
    case OpKind::Yield:
    case OpKind::Fence:
    case OpKind::ProcessExit:
      return "";
    default:
      return std::string(op_name(k));
  }
}

// A step the classes do not see and no other step depends on.
bool invisible(const shm::Event& e) {
  switch (OpKind(e.kind)) {
    case OpKind::ThreadStart:
    case OpKind::ThreadCreate:
    case OpKind::ThreadDetach:
    case OpKind::Yield:
    case OpKind::Fence:
      return true;
    default:
      return false;
  }
}

// A step that counts in the class: memory accesses and mutex operations.
bool visible(const shm::Event& e) {
  auto k = OpKind(e.kind);
  return memory_kind(k) || k == OpKind::MutexLock || k == OpKind::MutexTryLock || k == OpKind::MutexUnlock;
}

bool reads_memory(const shm::Event& e) { return op_reads_memory(OpKind(e.kind)); }

}  // namespace

ReadsFromStrategy::ReadsFromStrategy(bool tso) : tso_(tso) { new_node(); }  // node 0: the main thread's root

uint32_t ReadsFromStrategy::new_node() {
  nodes_.emplace_back();
  return uint32_t(nodes_.size() - 1);
}

void ReadsFromStrategy::fail(std::string why) {
  if (!unsupported_.empty()) return;
  unsupported_ = std::move(why);
  std::fprintf(stderr, "ctrl: --equivalence rf stops: %s; use --equivalence mazurkiewicz\n", unsupported_.c_str());
}

std::optional<std::pair<uint64_t, uint8_t>> ReadsFromStrategy::byte_seen(const State& s, uint32_t t, uint64_t addr,
                                                                         bool* from_memory) const {
  if (from_memory) *from_memory = false;
  if (t < s.buffers.size())
    for (auto it = s.buffers[t].rbegin(); it != s.buffers[t].rend(); ++it)
      if (addr >= it->addr && addr < it->addr + it->size)
        return std::make_pair(it->id, uint8_t(it->value >> (8 * (addr - it->addr))));
  if (from_memory) *from_memory = true;
  auto it = s.mem.find(addr);
  if (it != s.mem.end()) return it->second;
  auto init = init_.find(addr);
  if (init == init_.end()) return std::nullopt;
  return std::make_pair(kInitWriter, init->second);
}

std::optional<uint64_t> ReadsFromStrategy::key_of(const State& s, uint32_t t, const shm::Event& op) const {
  auto k = OpKind(op.kind);
  if (reads_memory(op)) {
    uint64_t v = 0;
    for (uint32_t b = 0; b < op.size; ++b) {
      auto byte = byte_seen(s, t, op.addr + b);
      if (!byte) return std::nullopt;
      v |= uint64_t(byte->second) << (8 * b);
    }
    return v;
  }
  if (k == OpKind::MutexTryLock) {
    auto it = s.mutexes.find(op.addr);
    return it != s.mutexes.end() && it->second.first ? 1 : 0;
  }
  return 0;
}

bool ReadsFromStrategy::enabled(const State& s, uint32_t t, const shm::Event& op) const {
  // TSO: what waits for a drained buffer (DporEvents.h) waits.
  if (tso_ && t < s.buffers.size() && !s.buffers[t].empty() && dpor::drains(op)) return false;
  switch (OpKind(op.kind)) {
    case OpKind::MutexLock: {
      auto it = s.mutexes.find(op.addr);
      return it == s.mutexes.end() || it->second.first == 0;
    }
    case OpKind::ThreadJoin:
      return op.aux < s.threads.size() && s.threads[op.aux].exited;
    default:
      return true;
  }
}

void ReadsFromStrategy::apply(State& s, uint32_t t, const Edge& e) const {
  const shm::Event& ev = e.ev;
  auto k = OpKind(ev.kind);
  uint64_t id = event_id(t, s.threads[t].count);
  if (memory_kind(k)) {
    if (reads_memory(ev)) {
      // The read's rf, byte by byte; the sum keeps the hash independent of
      // the order the reads ran in.
      uint64_t h = combine(0x5eed, id);
      for (uint32_t b = 0; b < ev.size; ++b) {
        auto byte = byte_seen(s, t, ev.addr + b);
        h = combine(h, byte ? byte->first : kInitWriter);
      }
      s.rf_hash += scramble(h);
    }
    if (tso_ && (ev.flags & shm::kBuffered) && op_writes_memory(k)) {
      if (s.buffers.size() <= t) s.buffers.resize(t + 1);
      s.buffers[t].push_back(State::Buffered{id, ev.addr, ev.value_written, s.schedule.size(), ev.size});
    } else {
      Access a = access_of(ev);
      for (uint64_t b = 0; b < a.write_size; ++b) s.mem[a.write_addr + b] = {id, uint8_t(ev.value_written >> (8 * b))};
    }
  } else {
    switch (k) {
      case OpKind::MutexLock:
      case OpKind::MutexTryLock:
      case OpKind::MutexUnlock: {
        auto [it, fresh] = s.mutexes.try_emplace(ev.addr, 0u, kInitWriter);
        if (k != OpKind::MutexUnlock) s.rf_hash += scramble(combine(combine(0x10c4, id), it->second.second));
        if (k == OpKind::MutexUnlock) {
          it->second = {0u, id};
        } else if (!(ev.flags & shm::kFailed)) {
          it->second = {t + 1, id};
        }
        break;
      }
      case OpKind::ThreadCreate:
        if (ev.aux >= s.threads.size()) s.threads.resize(ev.aux + 1);
        s.threads[ev.aux].node = e.created;
        break;
      case OpKind::ThreadExit:
        s.threads[t].exited = true;
        break;
      case OpKind::ProcessExit:
        s.ended = true;
        break;
      default:
        break;
    }
  }
  s.threads[t].node = e.child;
  ++s.threads[t].count;
  if (visible(ev)) ++s.threads[t].visible;
  s.schedule.push_back(t);
}

void ReadsFromStrategy::flush(State& s, uint32_t t) const {
  State::Buffered b = s.buffers[t].front();
  s.buffers[t].erase(s.buffers[t].begin());
  for (uint32_t i = 0; i < b.size; ++i) s.mem[b.addr + i] = {b.id, uint8_t(b.value >> (8 * i))};
  s.schedule.push_back(shm::kFlushActorBase + t);
}

uint64_t ReadsFromStrategy::class_key(const State& s) const {
  uint64_t h = combine(0xc1a55, s.rf_hash);
  for (const ThreadState& t : s.threads) h = combine(h, t.visible);
  return combine(h, s.ended);
}

bool ReadsFromStrategy::independent(const Step& a, const Step& b) const {
  // A flush writes its bytes; it conflicts with every access of them, its
  // own thread's included (coarser than DPOR's chronological traces: sound,
  // only more interleavings walked).
  return !conflicts(access_of(a.ev), access_of(b.ev));
}

ReadsFromStrategy::Need ReadsFromStrategy::expand(Frame& f, ExecutionPlan& plan) {
  const State& s = f.s;
  // A thread whose step an execution asked for did not show (it ended by a
  // bug or was cut before it) is left out: the search is incomplete.
  auto may_run_for = [&](uint32_t t) {
    for (uint32_t a : f.asked)
      if (a == t) return false;
    f.asked.push_back(t);
    return true;
  };
  std::vector<Step> steps;
  if (!s.ended) {
    for (uint32_t t = 0; t < s.threads.size(); ++t) {
      const ThreadState& ts = s.threads[t];
      if (ts.node == kNoNode || ts.exited) continue;
      const Node& n = nodes_[ts.node];
      if (!n.known) {
        if (may_run_for(t)) {
          plan.prefix = s.schedule;
          return Need::Run;
        }
        incomplete_ = true;
        continue;
      }
      if (!enabled(s, t, n.op)) continue;
      auto key = key_of(s, t, n.op);
      auto it = key ? n.edge.find(*key) : n.edge.end();
      if (it == n.edge.end()) {
        if (may_run_for(t)) {
          plan.prefix = s.schedule;
          plan.prefix.push_back(t);
          return Need::Run;
        }
        incomplete_ = true;
        continue;
      }
      steps.push_back(Step{t, it->second, edges_[it->second].ev});
    }
    for (uint32_t t = 0; t < s.buffers.size(); ++t)
      if (!s.buffers[t].empty()) {
        shm::Event fl{};
        fl.kind = uint16_t(OpKind::Flush);
        fl.thread = uint16_t(shm::kFlushActorBase + t);
        fl.owner = uint8_t(t);
        fl.addr = s.buffers[t].front().addr;
        fl.size = s.buffers[t].front().size;
        steps.push_back(Step{shm::kFlushActorBase + t, UINT32_MAX, fl});
      }
  }
  if (steps.empty()) {
    // A complete interleaving (all threads done, the process exited, or a
    // deadlock): its class runs once.
    if (executed_.count(class_key(s))) return Need::Done;
    if (!may_run_for(kNoNode)) {
      fail(
          "an execution of a planned class did not end as predicted (the program's behaviour depends on more than "
          "what its threads read)");
      return Need::Unsupported;
    }
    plan.prefix = s.schedule;
    return Need::Run;
  }
  auto asleep = [&](const Step& st) {
    for (const Step& z : f.sleep)
      if (z.thread == st.thread) return true;
    return false;
  };
  // A step that touches nothing (a start, a creation, a yield, a fence) is
  // taken alone: every class from here is that of an interleaving that
  // begins with it (it commutes with every step, and one it never ran
  // before the process exit has the same class, as classes count visible
  // events only). Asleep, it says this state was covered.
  for (const Step& st : steps)
    if (st.edge != UINT32_MAX && invisible(st.ev) && !(tso_ && OpKind(st.ev.kind) == OpKind::Fence)) {
      if (asleep(st)) return Need::Done;
      f.todo.push_back(st);
      f.expanded = true;
      return Need::Expanded;
    }
  for (const Step& st : steps)
    if (!asleep(st)) f.todo.push_back(st);
  // Explore in thread order (todo is popped from the back).
  std::vector<Step> reversed(f.todo.rbegin(), f.todo.rend());
  f.todo = std::move(reversed);
  f.expanded = true;
  return Need::Expanded;
}

std::optional<ExecutionPlan> ReadsFromStrategy::next() {
  if (!started_) {
    started_ = true;
    if (!fixed_prefix().empty()) {
      fail("exploring from a fixed prefix is not supported");
      return std::nullopt;
    }
    Frame root;
    root.s.threads.push_back(ThreadState{0, 0, 0, false});
    stack_.push_back(std::move(root));
  }
  while (!stack_.empty() && unsupported_.empty()) {
    if (stop_requested()) return std::nullopt;
    Frame& f = stack_.back();
    if (!f.expanded) {
      ExecutionPlan plan;
      Need need = expand(f, plan);
      if (need == Need::Run) return plan;
      if (need == Need::Unsupported) return std::nullopt;
      if (need == Need::Done) stack_.pop_back();
      continue;
    }
    if (f.todo.empty()) {
      stack_.pop_back();
      continue;
    }
    Step st = f.todo.back();
    f.todo.pop_back();
    Frame child;
    child.s = f.s;
    if (st.edge == UINT32_MAX)
      flush(child.s, st.thread - shm::kFlushActorBase);
    else
      apply(child.s, st.thread, edges_[st.edge]);
    for (const std::vector<Step>* set : {&f.sleep, &f.done})
      for (const Step& z : *set)
        if (independent(z, st)) child.sleep.push_back(z);
    f.done.push_back(st);
    stack_.push_back(std::move(child));
  }
  return std::nullopt;
}

void ReadsFromStrategy::completed(const ExecutionSummary& summary) {
  if (!unsupported_.empty()) return;
  State s;
  s.threads.push_back(ThreadState{0, 0, 0, false});
  for (uint64_t i = 0; i < summary.steps; ++i) {
    const shm::Event& ev = summary.events[i];
    std::string why = unsupported_op(ev, tso_);
    if (!why.empty()) return fail("not supported yet: " + why);
    uint32_t t = ev.thread;
    if (t >= shm::kFlushActorBase) {
      uint32_t owner = t - shm::kFlushActorBase;
      if (owner >= s.buffers.size() || s.buffers[owner].empty() || s.buffers[owner].front().step != ev.aux)
        return fail("step " + std::to_string(i + 1) + ": a flush the machine did not expect");
      flush(s, owner);
      continue;
    }
    if (t >= s.threads.size() || s.threads[t].node == kNoNode || s.threads[t].exited)
      return fail("thread " + std::to_string(t) + " ran where the machine has none");
    uint32_t node = s.threads[t].node;
    if (!nodes_[node].known) {
      nodes_[node].known = true;
      nodes_[node].op = ev;
    } else {
      const shm::Event& op = nodes_[node].op;
      if (op.kind != ev.kind || op.addr != ev.addr || op.size != ev.size || op.site != ev.site)
        return fail("thread " + std::to_string(t) + " did something else after the same reads (step " +
                    std::to_string(i + 1) + "): ctrl cannot predict it");
    }
    if (!enabled(s, t, ev)) return fail("step " + std::to_string(i + 1) + " ran where the machine has it blocked");
    // Initial bytes: what a read finds where this execution wrote nothing.
    if (reads_memory(ev))
      for (uint32_t b = 0; b < ev.size; ++b) {
        bool from_memory = false;
        byte_seen(s, t, ev.addr + b, &from_memory);
        if (from_memory && !s.mem.count(ev.addr + b)) init_.try_emplace(ev.addr + b, uint8_t(ev.value_read >> (8 * b)));
      }
    auto key = key_of(s, t, ev);
    uint64_t seen = 0;
    if (reads_memory(ev))
      seen = ev.value_read & dpor::size_mask(ev.size);
    else if (OpKind(ev.kind) == OpKind::MutexTryLock)
      seen = (ev.flags & shm::kFailed) ? 1 : 0;
    if (!key || *key != seen)
      return fail("step " + std::to_string(i + 1) + " read a value the machine did not predict (memory written where " +
                  "ctrl does not see it)");
    auto it = nodes_[node].edge.find(*key);
    uint32_t edge;
    if (it == nodes_[node].edge.end()) {
      Edge e;
      e.ev = ev;
      e.child = new_node();
      if (OpKind(ev.kind) == OpKind::ThreadCreate) e.created = new_node();
      edges_.push_back(e);
      edge = uint32_t(edges_.size() - 1);
      nodes_[node].edge.emplace(*key, edge);
    } else {
      edge = it->second;
      if (OpKind(ev.kind) == OpKind::ThreadCreate && edges_[edge].ev.aux != ev.aux)
        return fail("thread numbers depend on the schedule (threads create threads)");
    }
    apply(s, t, edges_[edge]);
  }
  // What threads left parked at the end (a process exit, a cut) were about
  // to do: known from now on.
  for (uint64_t i = 0; i < summary.npending && summary.pending; ++i) {
    const shm::Event& p = summary.pending[i];
    if (p.thread >= s.threads.size() || s.threads[p.thread].node == kNoNode) continue;
    if (!unsupported_op(p, tso_).empty() || p.thread >= shm::kFlushActorBase) continue;
    Node& n = nodes_[s.threads[p.thread].node];
    if (!n.known) {
      n.known = true;
      n.op = p;
    }
  }
  if (summary.complete && !executed_.insert(class_key(s)).second) ++redundant_;
}

bool ReadsFromStrategy::exhaustive() const {
  return started_ && stack_.empty() && !incomplete_ && unsupported_.empty();
}

std::optional<Strategy::ModelCounts> ReadsFromStrategy::model_counts() const {
  ModelCounts c;
  c.consistent = executed_.size();
  c.redundant = redundant_;
  return c;
}

}  // namespace ctrl
