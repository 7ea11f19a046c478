#include "C11Races.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "RaSaturation.h"

namespace ctrl {

namespace {

struct Access {
  uint32_t step;
  bool reads, writes, atomic;
};

// What a memory event of the execution does to its bytes (nothing for
// synchronisation calls, fences and events without memory).
bool access_of(const GraphEvent& e, uint32_t step, Access* out) {
  if (op_is_atomic(e.op)) {
    *out = {step, e.is_read(), e.is_write(), e.atomic()};
    return e.size > 0;
  }
  switch (e.op) {
    case OpKind::Load:
      *out = {step, true, false, false};
      return e.size > 0;
    case OpKind::Store:
      *out = {step, false, true, false};
      return e.size > 0;
    case OpKind::Rmw:
      *out = {step, true, true, e.locked};
      return e.size > 0;
    default:
      return false;
  }
}

std::string describe(const GraphEvent& e) {
  const char* what = e.is_write() || e.op == OpKind::Store || (e.op == OpKind::Rmw && !e.locked) ? "write" : "read";
  bool atomic = (e.op == OpKind::Rmw && e.locked) ||
                (e.op != OpKind::Load && e.op != OpKind::Store && e.op != OpKind::Rmw && e.atomic());
  return fmt::format("a {} {} by thread {}", atomic ? "atomic" : "non-atomic", what, e.thread);
}

}  // namespace

std::vector<Strategy::ModelBug> find_data_races(const ExecutionGraph& g, const HappensBefore& hb,
                                                uint64_t* inline_atomic) {
  // Accesses per byte they touch; bytes accessed atomically. Per byte, not
  // per word: a plain field sharing a word with an atomic one is plain.
  std::map<uint64_t, std::vector<Access>> bytes;
  std::set<uint64_t> atomic_byte;
  for (uint32_t i = 0; i < g.size(); i++) {
    const GraphEvent& e = g.at(i);
    Access a;
    if (!access_of(e, i, &a)) continue;
    for (uint64_t b = e.loc; b < e.loc + e.size; b++) {
      bytes[b].push_back(a);
      if (a.atomic) atomic_byte.insert(b);
    }
  }
  // A plain access is taken for an inline atomic when any of its bytes is.
  auto taken_inline = [&](const Access& a) {
    if (a.atomic) return false;
    const GraphEvent& e = g.at(a.step);
    auto it = atomic_byte.lower_bound(e.loc);
    return it != atomic_byte.end() && *it < e.loc + e.size;
  };
  std::set<uint32_t> counted;  // plain accesses taken for inline atomics
  std::set<uint32_t> raced;    // later accesses already in a race
  std::vector<Strategy::ModelBug> races;
  for (const auto& [byte, list] : bytes) {
    // The earlier accesses by kind (plain/atomic, read/write), in list
    // order: an atomic access races only with plain ones, a read only with
    // writes, so a spin loop's atomic accesses are not compared pairwise.
    std::vector<size_t> earlier[2][2];  // [atomic][writes]
    for (size_t j = 0; j < list.size(); j++) {
      const Access& b = list[j];
      auto note = [&] { earlier[b.atomic][b.writes].push_back(j); };
      if (taken_inline(b)) {
        counted.insert(b.step);
        note();
        continue;
      }
      if (raced.count(b.step)) {
        note();
        continue;
      }
      // The first earlier access (in list order) b races with.
      size_t first = SIZE_MAX;
      for (int atomic = 0; atomic < 2; atomic++)
        for (int writes = 0; writes < 2; writes++) {
          if (atomic && b.atomic) continue;
          if (!writes && !b.writes) continue;
          for (size_t k : earlier[atomic][writes]) {
            if (k >= first) break;
            const Access& a = list[k];
            if (taken_inline(a)) continue;
            const GraphEvent &ea = g.at(a.step), &eb = g.at(b.step);
            if (ea.thread == eb.thread) continue;
            if (hb.before(a.step, b.step) || hb.before(b.step, a.step)) continue;
            first = k;
            break;
          }
        }
      note();
      if (first == SIZE_MAX) continue;
      const Access& a = list[first];
      const GraphEvent &ea = g.at(a.step), &eb = g.at(b.step);
      Strategy::ModelBug bug;
      bug.kind = BugKind::DataRace;
      bug.facts.accesses = {BugAccess{.step = a.step}, BugAccess{.step = b.step}};
      bug.facts.address = byte;
      bug.message = fmt::format("data race: {} (step {}) and {} (step {}) are not ordered by happens-before",
                                describe(ea), a.step + 1, describe(eb), b.step + 1);
      races.push_back(bug);
      raced.insert(b.step);
    }
  }
  uint64_t inline_count = counted.size();
  std::sort(races.begin(), races.end(),
            [](const auto& x, const auto& y) { return x.facts.accesses[1].step < y.facts.accesses[1].step; });
  if (inline_atomic) *inline_atomic = inline_count;
  return races;
}

std::vector<Strategy::ModelBug> find_initial_value_reads(const ExecutionGraph& g, const HappensBefore& hb) {
  std::vector<Strategy::ModelBug> out;
  std::map<uint64_t, std::vector<uint32_t>> stores;  // per word, the steps writing it
  for (uint32_t i = 0; i < g.size(); i++) {
    const GraphEvent& e = g.at(i);
    Access a;
    if (access_of(e, i, &a) && a.writes)
      for (uint64_t w = e.loc >> 3; w <= (e.loc + e.size - 1) >> 3; w++) stores[w].push_back(i);
  }
  for (uint32_t i = 0; i < g.size(); i++) {
    const GraphEvent& e = g.at(i);
    Access a;
    if (!access_of(e, i, &a) || !a.atomic || !a.reads || e.rf != kInit || e.promise) continue;
    bool initialised = false;
    auto it = stores.find(e.loc >> 3);
    if (it != stores.end())
      for (uint32_t s : it->second)
        if (hb.before(s, i)) {
          initialised = true;
          break;
        }
    if (initialised) continue;
    Strategy::ModelBug bug;
    bug.kind = BugKind::UninitializedLoad;
    bug.facts.accesses = {BugAccess{.step = i}};
    bug.facts.address = e.loc;
    bug.message =
        fmt::format("uninitialized load: an atomic read by thread {} (step {}) reads a value no store wrote before it",
                    e.thread, i);
    out.push_back(bug);
  }
  return out;
}

std::vector<Strategy::ModelBug> model_bugs_of(const shm::Event* events, uint64_t n,
                                              const std::vector<shm::Choice>& choices, shm::MemoryModel model) {
  std::vector<StepChoice> steps(choices.size());
  for (size_t k = 0; k < choices.size(); k++) {
    steps[k].choice = choices[k];
    if (choices[k].kind == shm::ChoiceKind::ReadFrom) steps[k].rf = choices[k].from;
  }
  ExecutionGraph g = ExecutionGraph::build(events, n, steps);
  if (model == shm::MemoryModel::RA) as_release_acquire(g);
  HappensBefore hb;
  if (!hb.compute(g)) return {};
  std::vector<Strategy::ModelBug> bugs = find_data_races(g, hb);
  for (auto& b : find_initial_value_reads(g, hb)) bugs.push_back(b);
  return bugs;
}

}  // namespace ctrl
