// Simulated programs for strategy tests: a small interpreter plays the
// agent's part (forced prefix, then the plan's tail policy, sleepers kept
// parked until a conflicting event, the enabled set logged with each event)
// so exact class counts and outcome coverage can be checked without running
// processes; and the Mazurkiewicz classes of a program by brute force.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "Dependence.h"
#include "FairYields.h"
#include "Strategy.h"
#include "TailChooser.h"

namespace ctrl::sim {

struct Op {
  OpKind kind;
  uint64_t addr = 0;
  uint64_t value = 0;  // stored value, the constant added by a fetch_add, the new value of an exchange or CAS
  RmwOp rmw = RmwOp::Add;  // AtomicRmw: Add or Xchg
  uint64_t expected = 0;   // AtomicCas
};

inline Op xchg(uint64_t addr, uint64_t value) { return Op{OpKind::AtomicRmw, addr, value, RmwOp::Xchg}; }
inline Op cas(uint64_t addr, uint64_t expected, uint64_t desired) {
  return Op{OpKind::AtomicCas, addr, desired, RmwOp::None, expected};
}

struct Program {
  std::vector<std::vector<Op>> threads;
  std::map<uint64_t, uint64_t> init;  // memory before the threads run (0 elsewhere)
  // Log memory operations as the agent logs instruction sites (mov, lock
  // xadd, xchg, lock cmpxchg: a compare-exchange is an Rmw without RmwOp)
  // rather than as libatomic calls. Neither logs the value a store replaces
  // or the value a compare-exchange expected.
  bool instructions = false;
};

struct Outcome {
  std::vector<shm::Event> events;
  bool blocked = false;
  std::vector<uint64_t> reads;  // every value read, in thread order, for coverage
};

// What a strategy is shown of the simulated execution `index` (its events
// valid while `o` lives).
inline ExecutionSummary summary_of(const Outcome& o, uint64_t index) {
  ExecutionSummary s;
  s.index = index;
  s.events = o.events.data();
  s.steps = o.events.size();
  s.blocked = o.blocked;
  s.complete = !o.blocked;
  return s;
}

// The program's state: what the agent's model and the memory would hold.
struct Machine {
  const Program& p;
  std::vector<size_t> pc;
  std::map<uint64_t, uint64_t> memory;
  std::map<uint64_t, int> owner;  // mutex -> thread
  std::vector<std::vector<uint64_t>> reads;

  explicit Machine(const Program& prog)
      : p(prog), pc(prog.threads.size(), 0), memory(prog.init), reads(prog.threads.size()) {}

  bool enabled(uint32_t t) const {
    if (pc[t] >= p.threads[t].size()) return false;
    const Op& op = p.threads[t][pc[t]];
    if (op.kind == OpKind::MutexLock) {
      auto it = owner.find(op.addr);
      return it == owner.end() || it->second < 0;
    }
    return true;
  }
  uint64_t enabled_mask() const {
    uint64_t mask = 0;
    for (uint32_t t = 0; t < p.threads.size(); ++t)
      if (enabled(t)) mask |= uint64_t(1) << t;
    return mask;
  }
  // Thread t's next operation, logged as the agent would.
  shm::Event perform(uint32_t t, uint64_t step, uint64_t mask) {
    const Op& op = p.threads[t][pc[t]];
    shm::Event e{};
    e.step = uint32_t(step);
    e.thread = uint16_t(t);
    e.kind = uint16_t(op.kind);
    e.addr = op.addr;
    e.site = (uint64_t(t + 1) << 16) | (pc[t] + 1);  // straight-line code: an instruction per step
    e.size = 8;
    e.enabled = mask;
    switch (op.kind) {
      case OpKind::AtomicLoad:
        e.value_read = memory[op.addr];
        reads[t].push_back(e.value_read);
        break;
      case OpKind::AtomicStore:
        memory[op.addr] = op.value;
        e.value_written = op.value;
        break;
      case OpKind::AtomicRmw:
        e.rmw = uint8_t(op.rmw);
        e.value_read = memory[op.addr];
        e.value_written = op.rmw == RmwOp::Xchg ? op.value : e.value_read + op.value;
        memory[op.addr] = e.value_written;
        reads[t].push_back(e.value_read);
        break;
      case OpKind::AtomicCas:
        e.value_read = memory[op.addr];
        if (e.value_read == op.expected) {
          e.value_written = op.value;
          memory[op.addr] = op.value;
        } else {
          e.flags = shm::kFailed;
        }
        reads[t].push_back(e.value_read);
        break;
      case OpKind::MutexLock:
        owner[op.addr] = int(t);
        break;
      case OpKind::MutexUnlock:
        owner[op.addr] = -1;
        break;
      default:
        break;
    }
    ++pc[t];
    if (p.instructions && e.kind != uint16_t(OpKind::MutexLock) && e.kind != uint16_t(OpKind::MutexUnlock)) {
      bool locked = op.kind == OpKind::AtomicRmw || op.kind == OpKind::AtomicCas;
      e.flags |= shm::kInstruction | (locked ? shm::kLocked : 0);
      e.kind = uint16_t(op.kind == OpKind::AtomicLoad    ? OpKind::Load
                        : op.kind == OpKind::AtomicStore ? OpKind::Store
                                                         : OpKind::Rmw);
    }
    return e;
  }
};

// Runs one execution of `p` under `plan`, like the agent would.
inline Outcome simulate(const Program& p, const ExecutionPlan& plan) {
  Machine m(p);
  Outcome out;
  uint64_t sleep = 0;
  uint32_t current = 0;
  uint64_t rng = plan.seed;
  PctChooser pct;
  uint64_t changes[shm::kMaxPctDepth - 1];
  for (uint32_t i = 0; i + 1 < shm::kMaxPctDepth; ++i)
    changes[i] = i < plan.pct_change.size() ? plan.pct_change[i] : UINT64_MAX;
  pct.reset(plan.pct_depth, changes);
  FairYields fair;
  fair.reset(pct.writes_only);  // as the agent: PCT's write points take the weaker yield rule
  for (uint64_t step = 0;; ++step) {
    uint64_t mask = m.enabled_mask();
    if (!mask) break;
    uint64_t allowed = fair.allowed(mask);
    uint32_t next;
    if (step < plan.prefix.size()) {
      next = plan.prefix[step];
      EXPECT_TRUE(mask >> next & 1) << "the plan chose a thread that cannot run";
      uint64_t from = plan.sleep_from.value_or(plan.prefix.empty() ? 0 : plan.prefix.size() - 1);
      if (step == from) sleep = plan.sleep_mask & ~(uint64_t(1) << next);
    } else {
      uint64_t awake = mask & ~sleep;
      if (!(awake & allowed)) {  // as the agent: only sleepers, or only threads that gave way
        out.blocked = true;
        break;
      }
      uint64_t writing = 0;  // as the agent: the threads whose next operation writes
      for (uint32_t t = 0; t < p.threads.size(); ++t)
        if (m.enabled(t) && pct_write_step(p.threads[t][m.pc[t]].kind)) writing |= uint64_t(1) << t;
      next = plan.policy == shm::TailPolicy::Pct ? pct.choose(awake & allowed, step, rng, writing)
                                                 : choose_tail(plan.policy, awake & allowed, current, current, rng);
    }
    current = next;
    shm::Event e = m.perform(next, step, mask);
    fair.ran(next, OpKind(e.kind) == OpKind::Yield, mask);
    // Sleepers whose next step depends on this one wake up.
    Access done = access_of(e);
    for (const auto& [t, record] : plan.sleepers)
      if ((sleep >> t & 1) && conflicts(done, from_record(record))) sleep &= ~(uint64_t(1) << t);
    out.events.push_back(e);
  }
  for (auto& r : m.reads) out.reads.insert(out.reads.end(), r.begin(), r.end());
  return out;
}

// What identifies the Mazurkiewicz class of an execution of `p`: per event
// (a thread's n-th step), whether it wrote (a read-modify-write that left
// memory unchanged only reads), then per ordered pair of events of different
// threads, whether they conflict in that order.
using Signature = std::vector<bool>;

struct Numbering {
  std::vector<size_t> base;  // id of each thread's first event
  size_t total = 0;
  explicit Numbering(const Program& p) {
    for (const auto& t : p.threads) {
      base.push_back(total);
      total += t.size();
    }
  }
};

inline Signature signature_of(const Program& p, const std::vector<shm::Event>& events) {
  Numbering n(p);
  Signature sig(n.total + n.total * n.total, false);
  std::vector<size_t> next(p.threads.size(), 0), id;
  for (const auto& e : events) id.push_back(n.base[e.thread] + next[e.thread]++);
  for (size_t b = 0; b < events.size(); ++b) {
    Access ab = access_of(events[b]);
    sig[id[b]] = ab.write_size != 0;
    for (size_t a = 0; a < b; ++a)
      if (events[a].thread != events[b].thread && conflicts(access_of(events[a]), ab))
        sig[n.total + id[a] * n.total + id[b]] = true;
  }
  return sig;
}

// Every class of `p`, by brute force over every interleaving (that begins
// with `prefix`), with the first interleaving found in it.
inline std::map<Signature, std::vector<shm::Event>> classes_of(const Program& p, const std::vector<uint32_t>& prefix = {}) {
  Numbering n(p);
  std::map<Signature, std::vector<shm::Event>> classes;
  std::vector<shm::Event> done;
  Signature sig(n.total + n.total * n.total, false);
  std::function<void(Machine&)> go = [&](Machine& m) {
    uint64_t mask = m.enabled_mask();
    if (!mask) {
      for (uint32_t t = 0; t < p.threads.size(); ++t)
        EXPECT_EQ(m.pc[t], p.threads[t].size()) << "the program can deadlock";
      classes.emplace(sig, done);
      return;
    }
    for (uint32_t t = 0; t < p.threads.size(); ++t) {
      if (!(mask >> t & 1)) continue;
      if (done.size() < prefix.size() && t != prefix[done.size()]) continue;
      Machine next = m;
      size_t id = n.base[t] + m.pc[t];
      shm::Event e = next.perform(t, done.size(), mask);
      Access a = access_of(e);
      auto saved = sig;
      sig[id] = a.write_size != 0;
      std::vector<size_t> seen(p.threads.size(), 0);
      for (const auto& d : done) {
        size_t did = n.base[d.thread] + seen[d.thread]++;
        if (d.thread != t && conflicts(access_of(d), a)) sig[n.total + did * n.total + id] = true;
      }
      done.push_back(e);
      go(next);
      done.pop_back();
      sig = std::move(saved);
    }
  };
  Machine start(p);
  go(start);
  return classes;
}

inline uint64_t count_classes(const Program& p, const std::vector<uint32_t>& prefix = {}) {
  return classes_of(p, prefix).size();
}

}  // namespace ctrl::sim
