// Optimal-DPOR's half of DporStrategy (see DporStrategy.h): race reversals
// as sequences, wakeup trees, and what a moved read-modify-write does.
#include <algorithm>
#include <optional>

#include "DporEvents.h"
#include "DporStrategy.h"

namespace ctrl {

using namespace dpor;

DporStrategy::Step DporStrategy::step_of(const shm::Event& e, const Access& a) const {
  Step s;
  s.thread = e.thread;
  s.access = a;
  s.event = e;
  if (auto v = value_found(e)) {
    s.has_input = true;
    s.input = *v;
  }
  return s;
}

namespace {

uint64_t identity(uint32_t thread, uint64_t history, const shm::Event& e) {
  uint64_t h = mix(mix(thread, history), e.site);
  return mix(mix(mix(h, e.addr), e.size), e.kind);
}

}  // namespace

void DporStrategy::remember_natures(const shm::Event* events, uint64_t n) {
  // Forgetting costs no class: a nature not known makes an insertion wait,
  // or (once its state is left) take the step as a write, at worst running
  // a redundant branch that ends blocked.
  if (natures_.size() > kMaxNatures) natures_.clear();
  for (uint64_t k = 0; k < n; ++k) {
    const shm::Event& e = events[k];
    if (!nature_varies(e)) continue;
    auto found = value_found(e);
    if (!found) continue;
    Seen& seen = natures_[identity(e.thread, history_[k], e)];
    bool writes = access_of(e).write_size != 0;
    bool known = false;
    for (const auto& [v, w] : seen.writes) known |= v == *found;
    if (!known) seen.writes.emplace_back(*found, writes);
    if (e.flags & shm::kFailed) seen.failed = true;
  }
}

DporStrategy::Answer DporStrategy::writes_at(const Step& s, uint64_t value, bool seen_all) const {
  const shm::Event& e = s.event;
  bool logged = access_of(e).write_size != 0;
  if (!nature_varies(e)) return logged ? Answer::Yes : Answer::No;
  uint64_t mask = size_mask(e.size);
  if (!mask) return Answer::Unknown;
  value &= mask;
  uint64_t r = e.value_read & mask, w = e.value_written & mask;
  if (value == r) return logged ? Answer::Yes : Answer::No;
  // What the same step (same thread, same history) did with that value in
  // an execution seen so far; a compare-exchange that succeeded on some
  // value expects that one.
  const Seen* seen = nullptr;
  if (auto it = natures_.find(identity(s.thread, s.history, e)); it != natures_.end()) seen = &it->second;
  std::optional<uint64_t> expected;
  if (seen) {
    for (const auto& [v, wrote] : seen->writes)
      if (v == value) return wrote ? Answer::Yes : Answer::No;
    bool cas = OpKind(e.kind) == OpKind::AtomicCas || seen->failed;
    for (const auto& [v, wrote] : seen->writes)
      if (cas && wrote) expected = v;
  }
  auto known = [](bool writes) { return writes ? Answer::Yes : Answer::No; };
  Answer a = Answer::Unknown;
  bool failed = e.flags & shm::kFailed;
  switch (RmwOp(e.rmw)) {
    case RmwOp::Xchg:
      a = known(value != w);
      break;
    case RmwOp::Or:  // w = r | operand: the operand holds w & ~r, maybe some of r
      if (w & ~r & ~value)
        a = Answer::Yes;
      else if (!(w & ~value))
        a = Answer::No;
      break;
    case RmwOp::And:  // w = r & operand: known where r has ones
      if (value & r & ~w)
        a = Answer::Yes;
      else if (!(value & ~(r & w)))
        a = Answer::No;
      break;
    case RmwOp::None:  // a compare-exchange (or, for an instruction, another op)
      if (!failed && (OpKind(e.kind) == OpKind::AtomicCas || (seen && seen->failed)))
        a = Answer::No;  // it expected r, and finds something else
      else if (expected)
        a = known(value == *expected);
      break;
    default:
      break;
  }
  if (a == Answer::Unknown && seen_all) {
    // Asked about a step next to one whose whole subtree has been explored:
    // had it only read with this value, that subtree would have run it so.
    ++inferred_;
    a = Answer::Yes;
  }
  return a;
}

bool DporStrategy::resolve(Step& s, uint64_t value, bool seen_all) const {
  Answer w = writes_at(s, value, seen_all);
  if (w == Answer::Unknown) return false;
  s.access = with_nature(s.event, w == Answer::Yes);
  s.unsure = false;
  s.has_input = true;
  s.input = value & size_mask(s.event.size);
  return true;
}

DporStrategy::Answer DporStrategy::conflict(Step& a, Step& b, bool seen_all) const {
  auto answer = [](bool c) { return c ? Answer::Yes : Answer::No; };
  if (!a.unsure && !b.unsure) return answer(conflicts(a.access, b.access));
  Access aw = a.unsure ? with_nature(a.event, true) : a.access, ar = a.unsure ? with_nature(a.event, false) : a.access;
  Access bw = b.unsure ? with_nature(b.event, true) : b.access, br = b.unsure ? with_nature(b.event, false) : b.access;
  bool wide = conflicts(aw, bw), narrow = conflicts(ar, br);
  if (wide == narrow) return answer(wide);
  // Only what an unsure step does decides, and both find the same value at
  // their bytes (nothing between them writes there: that would conflict).
  bool same = a.event.addr == b.event.addr && a.event.size == b.event.size;
  const Step* known = a.has_input ? &a : b.has_input ? &b : nullptr;
  if (same && known) {
    uint64_t value = known->input;
    if (a.unsure && !resolve(a, value, seen_all)) return Answer::Unknown;
    if (b.unsure && !resolve(b, value, seen_all)) return Answer::Unknown;
    return answer(conflicts(a.access, b.access));
  }
  if (seen_all) {
    ++inferred_;
    return Answer::Yes;
  }
  return Answer::Unknown;
}

DporStrategy::Answer DporStrategy::initial(Sequence& v, size_t b) const {
  // The first step left of its thread starts v iff no step left before it
  // must precede it (any path to it ends with a direct edge). Paths through
  // steps that are gone do not count.
  for (size_t a = 0; a < b; ++a) {
    if (v.gone[a]) continue;
    if (ordered_apart(v.steps[a].event, v.steps[a].index, v.steps[b].event, v.steps[b].flush_bound)) return Answer::No;
    // Nothing else in v touches the bytes e_i wrote, so only a partial
    // overlap with the unsure e_j can leave this open: keep the order then.
    if (conflict(v.steps[a], v.steps[b], false) != Answer::No) return Answer::No;
  }
  return Answer::Yes;
}

DporStrategy::Answer DporStrategy::weak_initial(Step& step, Sequence& v, bool seen_all) const {
  // A thread is a weak initial of v when v can start with its step: its
  // first step in v has no predecessor in v, or it has none in v and its
  // step commutes with all of v.
  for (size_t b = 0; b < v.steps.size(); ++b) {
    if (v.gone[b] || v.steps[b].thread != step.thread) continue;
    Answer a = initial(v, b);
    if (a == Answer::Yes && step.unsure && !v.steps[b].unsure) {
      // The same step at the same place: a node learns what it does.
      const Step& known = v.steps[b];
      step.access = known.access;
      step.unsure = false;
      step.has_input = known.has_input;
      step.input = known.input;
    }
    return a;
  }
  Answer r = Answer::Yes;
  for (size_t b = 0; b < v.steps.size(); ++b) {
    if (v.gone[b]) continue;
    Answer c = conflict(step, v.steps[b], seen_all);
    if (c == Answer::Yes) return Answer::No;
    if (c == Answer::Unknown) r = Answer::Unknown;
  }
  return r;
}

DporStrategy::Move DporStrategy::movable(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j) const {
  // Every step of notdep(e_i) keeps what made it possible; e_j may lose it.
  // A wake-up needs its signal (unless the wait is timed: it times out), a
  // flush its store, a drain the flushes before it.
  for (int64_t f : enablers_[j])
    if (uint64_t(f) == i || happens_before(i, uint64_t(f))) return Move::Never;
  // The agent does not run a thread about to re-read, at the same site and
  // in the same state (kSameState), a location it read while nothing it read
  // since has been written (await, agent/ExecutionModel.h), unless no
  // thread could run otherwise (probe).
  const shm::Event& ej = events[j];
  if (!(ej.flags & shm::kSameState)) return Move::Yes;
  if (!op_reads_memory(OpKind(ej.kind))) return Move::Yes;
  // The thread's latest reads (a read-modify-write that left memory as it
  // was counts as one), newest first, back to its latest write.
  constexpr size_t kWindow = 8;  // agent's ThreadModel::kWindow
  std::vector<uint64_t> reads;
  bool match = false;
  for (uint64_t m = j; m-- > 0 && reads.size() < kWindow;) {
    const shm::Event& e = events[m];
    if (e.thread != ej.thread) continue;
    OpKind k = OpKind(e.kind);
    // As Runtime::note_memory classifies them.
    bool unchanged = (e.flags & shm::kFailed) || (e.rmw != uint8_t(RmwOp::None) && e.value_written == e.value_read);
    if (k == OpKind::Load || k == OpKind::AtomicLoad || (is_rmw(e) && unchanged)) {
      reads.push_back(m);
      if ((match = e.site == ej.site && e.addr == ej.addr)) break;
    } else if (is_rmw(e) || ((k == OpKind::Store || k == OpKind::AtomicStore) && !(e.flags & shm::kUnchanged))) {
      break;  // it wrote (into memory or its buffer): what it read before has changed
    }
  }
  if (!match) return Move::Yes;
  // Enabled after notdep(e_i) iff some write to one of those locations,
  // after its read, stays before e_j: e_i and what happens after it do not.
  for (uint64_t r : reads) {
    const shm::Event& er = events[r];
    for (uint64_t x = r + 1; x < n; ++x) {
      if (x == i || x == j || happens_before(i, x)) continue;
      Access ax = access_of(events[x]);
      if (ranges_overlap(ax.write_addr, ax.write_size, er.addr, er.size ? er.size : 1)) return Move::Yes;
    }
  }
  return Move::Await;
}

void DporStrategy::try_every_thread(uint64_t i) {
  // As source-DPOR does when no initial can run: a branch for every thread
  // enabled there, not tried and not asleep. What each does is unknown: it
  // conflicts with everything until it has run.
  Position& pos = stack_[i];
  uint64_t asleep = mask_of(pos.sleep), have = pos.done | asleep;
  for (const Node& c : pos.wakeup.children) have |= bit(c.step.thread);
  for (uint64_t m = pos.enabled & ~have; m; m &= m - 1) {
    Node node;
    node.step.thread = uint32_t(__builtin_ctzll(m));
    node.step.event.thread = uint16_t(node.step.thread);
    node.step.access.everything = true;
    pos.wakeup.children.push_back(std::move(node));
  }
}

void DporStrategy::race_sequence(const shm::Event* events, uint64_t n, uint64_t i, uint64_t j, const Virtual* last) {
  // The decision at a state of the fixed prefix is not ours to change.
  if (i < fixed_steps()) return;
  // A race whose reversal cannot run is none (the paper reverses only
  // those). One that may run only as a spin probe: try what can run there.
  // (A pending operation that could run at the end runs after notdep(e_i).)
  switch (last ? Move::Yes : movable(events, n, i, j)) {
    case Move::Never:
      return;
    case Move::Await:
      try_every_thread(i);
      return;
    case Move::Yes:
      break;
  }
  // notdep(e_i, E): every later event of the whole execution that does not
  // happen after e_i, including those after e_j (they commute with it). Only
  // the events between them would make v depend on how the execution
  // happened to be interleaved: an event left out there can be the one that
  // keeps a sleeping thread from being a weak initial of v.
  std::vector<uint64_t> idx;
  for (uint64_t m = i + 1; m < n; ++m)
    if (m != j && !happens_before(i, m)) idx.push_back(m);
  idx.push_back(j);
  Sequence v;
  for (uint64_t m : idx) {
    if (last && m == last->index) {
      // Never ran: taken as it would be logged (a read-modify-write writes).
      Step& s = v.steps.emplace_back(step_of(last->event, last->access));
      s.has_input = false;
      s.history = end_history_[last->event.thread % shm::kMaxThreads];
      s.index = m;
      continue;
    }
    Step& s = v.steps.emplace_back(step_of(events[m], access_of(events[m])));
    s.history = history_[m];
    s.index = m;
    s.flush_bound = flush_bound(events[m]);
  }
  v.gone.assign(idx.size(), false);

  // e_j now runs before e_i: where e_i wrote its bytes, it finds what was
  // there before e_i (known when e_i is a read-modify-write of them).
  Step& sj = v.steps.back();
  Access ai = access_of(events[i]), aj = last ? last->access : access_of(events[j]);
  if (!last && (ranges_overlap(ai.write_addr, ai.write_size, aj.read_addr, aj.read_size) ||
                ranges_overlap(ai.write_addr, ai.write_size, aj.read2_addr, aj.read2_size))) {
    sj.has_input = false;
    if (nature_varies(events[j])) {
      sj.unsure = true;
      auto before = value_found(events[i]);
      if (before && is_rmw(events[i]) && events[i].addr == events[j].addr && events[i].size == events[j].size)
        resolve(sj, *before, false);
    }
  }
  if (!insert(i, v, false)) {
    pending_.push_back(Pending{i, std::move(v)});
    ++deferred_;
  }
}

bool DporStrategy::insert(uint64_t at, Sequence v, bool last) {
  // Redundant when a thread asleep at that state (or tried there before)
  // could start v: that part of the space is covered. Their subtrees have
  // been explored.
  const Position& pos = stack_[at];
  uint32_t current = pos.event.thread;
  for (const auto* list : {&pos.sleep, &pos.tried})
    for (const auto& s : *list) {
      if (list == &pos.tried && s.thread == current) continue;
      Step q = step_of(s.event, s.next);
      Answer a = weak_initial(q, v, true);
      if (a == Answer::Yes) return true;
      if (a == Answer::Unknown) return false;
    }

  auto empty = [&] {
    for (bool g : v.gone)
      if (!g) return false;
    return true;
  };
  auto remove_first = [&](uint32_t thread) {
    for (size_t b = 0; b < v.steps.size(); ++b)
      if (!v.gone[b] && v.steps[b].thread == thread) {
        v.gone[b] = true;
        return;
      }
  };
  // Follow the current path while its steps can start v (only a reversal
  // that waited gets past its first step: a fresh one starts with the step
  // it reverses); then the trees.
  uint64_t k = at;
  for (;;) {
    if (empty()) return true;
    Step here = step_of(stack_[k].event, access_of(stack_[k].event));
    Answer a = weak_initial(here, v, last);
    if (a == Answer::Unknown) return false;
    if (a == Answer::No) break;
    remove_first(here.thread);
    if (k + 1 >= stack_.size() || !stack_[k + 1].forced) return true;  // a leaf: covered
    ++k;
  }
  Node* node = &stack_[k].wakeup;
  for (;;) {
    if (empty()) return true;
    Node* next = nullptr;
    for (Node& child : node->children) {
      Answer a = weak_initial(child.step, v, false);
      if (a == Answer::Unknown) return false;
      if (a == Answer::Yes) {
        next = &child;
        break;
      }
    }
    if (!next) {
      // A new branch: the rest of v, in order.
      Node* tail = node;
      for (size_t b = 0; b < v.steps.size(); ++b) {
        if (v.gone[b]) continue;
        tail->children.push_back(Node{v.steps[b], {}});
        tail = &tail->children.back();
      }
      return true;
    }
    remove_first(next->step.thread);
    if (next->children.empty()) return true;  // a leaf: covered
    node = next;
  }
}

}  // namespace ctrl
