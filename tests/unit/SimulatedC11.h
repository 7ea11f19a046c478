// A C11 litmus test (tests/c11litmus) run as the agent runs its generated
// program under --model c11/rc11, without a process: strategy tests of
// GraphStrategy feed it plans and compare the outcomes with the
// enumerator's (C11Model.h).
//
// The simulated program is the one `c11litmus emit c` writes: main (thread
// 0) creates the litmus threads in order (litmus thread i is ctrl thread
// i + 1), joins them in order, then reads each outcome location written by
// two or more operations (an atomic one with a relaxed load, which the
// agent sees; a non-atomic one with a plain read, which it does not) and
// exits. Its event log is the agent's:
//  * main: ThreadCreate (aux: the child) per child, ThreadJoin (aux: the
//    child, enabled once the child has exited) per child, the final
//    AtomicLoads, ProcessExit;
//  * each child: ThreadStart, one event per operation, ThreadExit;
//  * an atomic operation is AtomicLoad, AtomicStore, AtomicRmw (xchg: Xchg,
//    fadd: Add), AtomicCas (kFailed when it fails, whose order is then the
//    failure order; value_written its desired value even then, as the agent
//    logs it under c11/rc11) or Fence
//    (addr 0, size 0), with its memory order, size 8, and location
//    `address_of` (0x1000 + 8 * its index in Test::locations);
//  * aux, as GraphStrategy's ExecutionGraph reads it: an AtomicStore's holds
//    the bytes memory held before it (what a read of the initial store
//    returns: the only way the controller can learn an initial value nobody
//    read), an AtomicRmw's its operand (the value exchanged or added), an
//    AtomicCas's the value it expected;
//  * a non-atomic access (`na`) is logged as an AtomicLoad or AtomicStore of
//    order MemOrder::NotAtomic. The generated program's volatile accesses
//    are plain movs, which the agent sees only as instruction sites; this
//    simulator assumes --model c11/rc11 logs them so, with Choices applied
//    as to atomics, which the enumerator's counts (each na read's rf) need.
// Each decision k < prefix.size() runs thread prefix[k] and applies
// choices[k] exactly as protocol/SharedRegion.h's Choice says (ReadFrom and
// Promise: the read returns Choice::value; kNotMoLast: the store's value is
// computed and logged, memory not written; Default: memory); past the
// prefix, the sticky tail with Default choices.
//
// A location without an initial value (INIT x=?) holds kGarbage, the bits of
// c11litmus::kUndefined, so that a read of it formats as "?" as the
// enumerator's outcomes do; whether such a read is reported is the
// strategy's (and the controller's) business, not checked here.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "C11Litmus.h"
#include "SharedRegion.h"
#include "Strategy.h"
#include "TailChooser.h"

namespace ctrl::c11sim {

inline constexpr uint64_t kLocationBase = 0x1000;
inline constexpr uint64_t kGarbage = uint64_t(c11litmus::kUndefined);

// One fixed address per location, in Test::locations' (sorted) order.
inline uint64_t address_of(const c11litmus::Test& t, const std::string& loc) {
  uint64_t i = 0;
  for (const auto& [name, init] : t.locations) {
    if (name == loc) return kLocationBase + 8 * i;
    ++i;
  }
  ADD_FAILURE() << "no location " << loc;
  return 0;
}

inline MemOrder mem_order(c11litmus::Order o) {
  switch (o) {
    case c11litmus::Order::NA:
      return MemOrder::NotAtomic;
    case c11litmus::Order::Rlx:
      return MemOrder::Relaxed;
    case c11litmus::Order::Acq:
      return MemOrder::Acquire;
    case c11litmus::Order::Rel:
      return MemOrder::Release;
    case c11litmus::Order::AcqRel:
      return MemOrder::AcqRel;
    case c11litmus::Order::SC:
      return MemOrder::SeqCst;
  }
  return MemOrder::SeqCst;
}

// Whether the program reads `loc` with a plain access (every access to a
// location has the same atomicity: C11Litmus.h).
inline bool non_atomic(const c11litmus::Test& t, const std::string& loc) {
  for (const auto& ops : t.threads)
    for (const c11litmus::Op& op : ops)
      if (op.loc == loc) return op.order == c11litmus::Order::NA;
  return false;
}

// One simulated execution.
struct Execution {
  std::vector<shm::Event> events;
  std::vector<long> values;  // Test::outcome_names() order
  std::string outcome;       // c11litmus::format_outcome of them
  bool diverged = false;     // the plan chose a thread that could not run
  // ReadFrom choices that break Choice's contract: the step `from` is not a
  // store to the read's location performed earlier in this execution that
  // wrote `value` (or, kFromInit, `value` is not the initial value). The
  // agent trusts them; a strategy test should require none.
  std::vector<std::string> bad_reads_from;
};

inline ExecutionSummary summary_of(const Execution& r, uint64_t index) {
  ExecutionSummary s;
  s.index = index;
  s.events = r.events.data();
  s.steps = r.events.size();
  s.complete = !r.diverged;
  return s;
}

// The program's state: per thread its program counter over its steps (a
// child: ThreadStart, its operations, ThreadExit; main: creates, joins,
// final loads, exit), and memory.
class Machine {
 public:
  explicit Machine(const c11litmus::Test& t) : t_(t), children_(uint32_t(t.threads.size())) {
    for (const auto& [loc, init] : t.locations) memory_[address_of(t, loc)] = init ? uint64_t(*init) : kGarbage;
    initial_ = memory_;
    for (const std::string& name : t.outcome_names())
      if (t.locations.count(name) && !non_atomic(t, name)) final_loads_.push_back(name);
    pc_.assign(children_ + 1, 0);
    for (const std::string& r : t.registers()) registers_[r] = 0;
  }

  uint32_t threads() const { return children_ + 1; }
  // What `addr` held before any thread ran.
  uint64_t initial(uint64_t addr) const { return initial_.at(addr); }

  // Whether thread t's next step is one of the litmus test's operations
  // (not a thread's start, exit, create or join, or main's final load,
  // which commute with every other thread's step), for brute-force search.
  bool at_operation(uint32_t t) const { return t > 0 && pc_[t] >= 1 && pc_[t] <= t_.threads[t - 1].size(); }

  bool enabled(uint32_t t) const {
    if (t == 0) {
      size_t pc = pc_[0];
      if (pc < children_) return true;                                        // create
      if (pc < 2 * children_) return finished(uint32_t(pc - children_) + 1);  // join
      return pc < 2 * children_ + final_loads_.size() + 1;                    // loads, exit
    }
    return created(t) && !finished(t);
  }
  uint64_t enabled_mask() const {
    uint64_t mask = 0;
    for (uint32_t t = 0; t < threads(); ++t)
      if (enabled(t)) mask |= uint64_t(1) << t;
    return mask;
  }

  // Thread t's next step under `choice`, logged as the agent logs it.
  shm::Event perform(uint32_t t, uint64_t step, uint64_t mask, const shm::Choice& choice) {
    shm::Event e{};
    e.step = uint32_t(step);
    e.thread = uint16_t(t);
    e.enabled = mask;
    e.order = uint8_t(MemOrder::NotAtomic);
    size_t pc = pc_[t]++;
    if (t == 0) {
      e.site = 0x400000 + 0x10 * pc;
      if (pc < children_) {
        e.kind = uint16_t(OpKind::ThreadCreate);
        e.aux = pc + 1;
      } else if (pc < 2 * children_) {
        e.kind = uint16_t(OpKind::ThreadJoin);
        e.aux = pc - children_ + 1;
      } else if (pc < 2 * children_ + final_loads_.size()) {
        e.kind = uint16_t(OpKind::AtomicLoad);
        e.addr = address_of(t_, final_loads_[pc - 2 * children_]);
        e.size = 8;
        e.order = uint8_t(MemOrder::Relaxed);
        e.value_read = read(e.addr, choice);
        finals_[final_loads_[pc - 2 * children_]] = e.value_read;
      } else {
        e.kind = uint16_t(OpKind::ProcessExit);
      }
      return e;
    }
    const std::vector<c11litmus::Op>& ops = t_.threads[t - 1];
    uint64_t start_routine = 0x500000 + 0x1000 * t;
    if (pc == 0) {
      e.kind = uint16_t(OpKind::ThreadStart);
      e.site = start_routine;
      return e;
    }
    if (pc == ops.size() + 1) {
      e.kind = uint16_t(OpKind::ThreadExit);
      e.site = start_routine;
      return e;
    }
    const c11litmus::Op& op = ops[pc - 1];
    e.site = start_routine + 0x10 * pc;
    e.order = uint8_t(mem_order(op.order));
    if (op.kind != c11litmus::OpKind::Fence) {
      e.addr = address_of(t_, op.loc);
      e.size = 8;
    }
    bool mo_last = !(choice.flags & shm::kNotMoLast);
    switch (op.kind) {
      case c11litmus::OpKind::Load:
        e.kind = uint16_t(OpKind::AtomicLoad);
        e.value_read = read(e.addr, choice);
        break;
      case c11litmus::OpKind::Store:
        e.kind = uint16_t(OpKind::AtomicStore);
        e.value_written = uint64_t(op.value);
        e.aux = memory_[e.addr];
        if (mo_last) memory_[e.addr] = e.value_written;
        break;
      case c11litmus::OpKind::Xchg:
      case c11litmus::OpKind::FetchAdd: {
        bool xchg = op.kind == c11litmus::OpKind::Xchg;
        e.kind = uint16_t(OpKind::AtomicRmw);
        e.rmw = uint8_t(xchg ? RmwOp::Xchg : RmwOp::Add);
        e.value_read = read(e.addr, choice);
        e.value_written = xchg ? uint64_t(op.value) : e.value_read + uint64_t(op.value);
        e.aux = uint64_t(op.value);  // the operand
        if (mo_last) memory_[e.addr] = e.value_written;
        break;
      }
      case c11litmus::OpKind::Cas:
        e.kind = uint16_t(OpKind::AtomicCas);
        e.value_read = read(e.addr, choice);
        e.aux = uint64_t(op.expected);
        e.value_written = uint64_t(op.value);
        if (e.value_read == uint64_t(op.expected)) {
          if (mo_last) memory_[e.addr] = e.value_written;
        } else {
          e.flags = shm::kFailed;
          e.order = uint8_t(mem_order(op.fail_order));
        }
        break;
      case c11litmus::OpKind::Fence:
        e.kind = uint16_t(OpKind::Fence);
        break;
    }
    if (!op.reg.empty()) registers_[op.reg] = long(e.value_read);
    return e;
  }

  // The outcome as main reads it: registers, then the final value of each
  // location written twice or more (main's final load, or memory for a
  // non-atomic one).
  std::vector<long> values() const {
    std::vector<long> out;
    for (const std::string& name : t_.outcome_names()) {
      auto r = registers_.find(name);
      if (r != registers_.end()) {
        out.push_back(r->second);
      } else {
        auto f = finals_.find(name);
        out.push_back(long(f != finals_.end() ? f->second : memory_.at(address_of(t_, name))));
      }
    }
    return out;
  }

 private:
  bool created(uint32_t t) const { return pc_[0] >= t; }
  bool finished(uint32_t t) const { return pc_[t] >= t_.threads[t - 1].size() + 2; }

  uint64_t read(uint64_t addr, const shm::Choice& choice) const {
    return choice.kind == shm::ChoiceKind::Default ? memory_.at(addr) : choice.value;
  }

  const c11litmus::Test& t_;
  uint32_t children_;
  std::vector<size_t> pc_;
  std::map<uint64_t, uint64_t> memory_, initial_;
  std::vector<std::string> final_loads_;
  std::map<std::string, long> registers_;
  std::map<std::string, uint64_t> finals_;  // what main's final loads returned
};

inline bool reads(OpKind k) { return k == OpKind::AtomicLoad || k == OpKind::AtomicRmw || k == OpKind::AtomicCas; }
inline bool writes(const shm::Event& e) {
  OpKind k = OpKind(e.kind);
  return k == OpKind::AtomicStore || k == OpKind::AtomicRmw || (k == OpKind::AtomicCas && !(e.flags & shm::kFailed));
}

// Records in `run` whether the ReadFrom `c` of its last event names a store
// of the value it gives.
inline void check_read_from(const Machine& m, Execution& run, const shm::Choice& c) {
  const shm::Event& e = run.events.back();
  if (!reads(OpKind(e.kind))) return;
  std::string why;
  if (c.from == shm::kFromInit) {
    if (c.value != m.initial(e.addr)) why = "the initial value is " + std::to_string(m.initial(e.addr));
  } else if (c.from >= e.step) {
    why = "that step is not performed yet";
  } else {
    const shm::Event& w = run.events[c.from];
    if (!writes(w) || w.addr != e.addr)
      why = std::string("that step is a ") + op_name(OpKind(w.kind)) + " of T" + std::to_string(w.thread) +
            ", no store to this location";
    else if (w.value_written != c.value)
      why = "that store wrote " + std::to_string(w.value_written);
  }
  if (why.empty()) return;
  run.bad_reads_from.push_back("step " + std::to_string(e.step) + " (T" + std::to_string(e.thread) + " " +
                               op_name(OpKind(e.kind)) + ") reads from " +
                               (c.from == shm::kFromInit ? std::string("init") : "step " + std::to_string(c.from)) +
                               " the value " + std::to_string(c.value) + ", but " + why);
}

// Runs one execution of `t` under `plan` (its prefix, choices and the sticky
// tail; the plan's other fields do not apply to these strategies).
inline Execution simulate(const c11litmus::Test& t, const ExecutionPlan& plan) {
  Machine m(t);
  Execution run;
  uint32_t current = 0;
  uint64_t rng = 0;
  const shm::Choice kDefault{};
  for (uint64_t step = 0;; ++step) {
    uint64_t mask = m.enabled_mask();
    if (!mask) break;
    uint32_t next;
    shm::Choice choice = kDefault;
    if (step < plan.prefix.size()) {
      next = plan.prefix[step];
      if (next >= m.threads() || !(mask >> next & 1)) {
        ADD_FAILURE() << "the plan chose thread " << next << " at step " << step << ", which cannot run";
        run.diverged = true;
        break;
      }
      if (step < plan.choices.size()) choice = plan.choices[step];
    } else {
      next = choose_tail(shm::TailPolicy::Sticky, mask, current, current, rng);
    }
    current = next;
    run.events.push_back(m.perform(next, step, mask, choice));
    if (choice.kind == shm::ChoiceKind::ReadFrom) check_read_from(m, run, choice);
  }
  run.values = m.values();
  run.outcome = c11litmus::format_outcome(t.outcome_names(), run.values);
  return run;
}

}  // namespace ctrl::c11sim
