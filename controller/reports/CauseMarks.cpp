#include "reports/CauseMarks.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "Dependence.h"
#include "binary/Symbolizer.h"
#include "reports/CalledNames.h"

namespace ctrl {

namespace {

// Orders that cannot be reversed: the second operation waits for the first.
bool reversible(const shm::Event& a, const shm::Event& b) {
  auto ka = OpKind(a.kind), kb = OpKind(b.kind);
  if (ka == OpKind::ProcessExit || kb == OpKind::ProcessExit) return false;
  if (ka == OpKind::ThreadExit && kb == OpKind::ThreadJoin) return false;
  if (ka == OpKind::MutexUnlock || ka == OpKind::RwUnlock || ka == OpKind::SemPost) return false;
  // A woken waiter takes the mutex back after the signal that woke it.
  if ((ka == OpKind::CondSignal || ka == OpKind::CondBroadcast) && kb == OpKind::CondReacquire) return false;
  if ((ka == OpKind::CondWait || ka == OpKind::CondTimedWait) && kb != OpKind::CondSignal &&
      kb != OpKind::CondBroadcast)
    return false;  // releasing the mutex: like an unlock
  return true;
}

using Clock = std::vector<uint32_t>;

void join(Clock& into, const Clock& c) {
  if (into.size() < c.size()) into.resize(c.size(), 0);
  for (size_t i = 0; i < c.size(); ++i) into[i] = std::max(into[i], c[i]);
}

}  // namespace

bool CauseMarks::preempts(size_t step) const {
  return std::binary_search(preemptions.begin(), preemptions.end(), step);
}

std::vector<size_t> CauseMarks::partners(size_t step) const {
  std::vector<size_t> out;
  for (const Pair& p : pairs) {
    if (p.first == step) out.push_back(p.second);
    if (p.second == step) out.push_back(p.first);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool CauseMarks::decides(size_t step) const {
  for (const Pair& p : pairs)
    if (p.first == step || p.second == step) return true;
  for (const PendingPair& p : pending_pairs)
    if (p.step == step) return true;
  return false;
}

CauseMarks find_cause(const std::vector<shm::Event>& events, const std::vector<shm::Event>& pending) {
  CauseMarks marks;
  size_t n = events.size();
  size_t from = n > CauseMarks::kAnalysedSteps ? n - CauseMarks::kAnalysedSteps : 0;
  for (size_t k = std::max<size_t>(from, 1); k < n; ++k) {
    uint32_t prev = events[k - 1].thread;
    if (events[k].thread != prev && prev < 64 && (events[k].enabled >> prev & 1)) marks.preemptions.push_back(k);
  }

  // Happens-before by vector clocks over program order, thread creation
  // and the order of conflicting operations; actors (threads, store
  // buffers' flushes) numbered densely.
  std::unordered_map<uint32_t, size_t> actor;
  auto actor_of = [&](uint32_t t) { return actor.try_emplace(t, actor.size()).first->second; };
  std::vector<Clock> clock(n);
  std::vector<Access> access(n);
  std::unordered_map<uint32_t, size_t> last_of;  // thread -> its latest step
  std::unordered_map<uint32_t, Clock> created;   // thread -> its creator's clock
  // Where each step's run of one thread begins: the backward scan below
  // skips the current thread's own runs whole (a 20,000-step run of one
  // thread made it quadratic: seconds in every report of such a bug, and
  // after a Ctrl-C that came while it was shrunk).
  std::vector<size_t> run_begin(n);
  for (size_t k = from; k < n; ++k)
    run_begin[k] = k > from && events[k].thread == events[k - 1].thread ? run_begin[k - 1] : k;
  for (size_t j = from; j < n; ++j) {
    const shm::Event& e = events[j];
    access[j] = access_of(e);
    size_t me = actor_of(e.thread);
    Clock c;
    if (auto it = last_of.find(e.thread); it != last_of.end())
      c = clock[it->second];
    else if (auto cr = created.find(e.thread); cr != created.end())
      c = cr->second;
    // Conflicting earlier steps, latest first: one already ordered before
    // j through a later one is no race.
    for (size_t i = j; i-- > from;) {
      const shm::Event& f = events[i];
      if (f.thread == e.thread) {
        i = run_begin[i];  // the loop steps on to the step before the run
        continue;
      }
      if (!conflicts(access[i], access[j])) continue;
      size_t other = actor_of(f.thread);
      bool ordered = other < c.size() && c[other] >= clock[i][other];
      if (!ordered && reversible(f, e)) marks.pairs.push_back({i, j});
      join(c, clock[i]);
    }
    if (c.size() <= me) c.resize(me + 1, 0);
    c[me] = uint32_t(j - from + 1);
    clock[j] = c;
    last_of[e.thread] = j;
    if (OpKind(e.kind) == OpKind::ThreadCreate) created[uint32_t(e.aux)] = c;
  }

  // Who took a lock first: an acquisition, and the latest acquisition of
  // the same object by another thread before it, while its own thread did
  // nothing in between (it waited for the lock all along). Happens-before
  // orders the two through the first one's release, so the search above
  // does not see them; DPOR reverses them all the same.
  auto acquires = [](const shm::Event& e) {
    auto k = OpKind(e.kind);
    return (op_acquires(k) || k == OpKind::CondReacquire) && !(e.flags & shm::kFailed);
  };
  auto object_of = [](const shm::Event& e) { return OpKind(e.kind) == OpKind::CondReacquire ? e.aux : e.addr; };
  for (size_t j = from; j < n; ++j) {
    if (!acquires(events[j])) continue;
    uint64_t obj = object_of(events[j]);
    for (size_t i = j; i-- > from;) {
      if (events[i].thread == events[j].thread) break;  // its own step in between
      if (acquires(events[i]) && object_of(events[i]) == obj) {
        marks.pairs.push_back({i, j});
        break;
      }
    }
  }
  std::sort(marks.pairs.begin(), marks.pairs.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second < b.second);
  });
  marks.pairs.erase(
      std::unique(marks.pairs.begin(), marks.pairs.end(),
                  [](const auto& a, const auto& b) { return a.first == b.first && a.second == b.second; }),
      marks.pairs.end());

  // A blocked thread's next operation against the latest conflicting step
  // of another thread (the lock it waits for, the signal its wait missed).
  for (const shm::Event& p : pending) {
    shm::Event op = p;
    Access a = access_of(op);
    for (size_t i = n; i-- > from;) {
      if (events[i].thread == p.thread || !conflicts(access[i], a)) continue;
      if (OpKind(events[i].kind) == OpKind::ProcessExit) continue;
      marks.pending_pairs.push_back({i, p.thread, OpKind(p.kind), p.addr});
      break;
    }
  }
  return marks;
}

std::vector<bool> steps_to_show(const std::vector<shm::Event>& events, const CauseMarks& marks) {
  // Runs of one thread longer than kFoldAbove unmarked steps keep their
  // first kKeep and last kKeep; beyond kManySteps only marked steps, thread
  // changes and the last kTail steps are kept.
  constexpr size_t kFoldAbove = 8, kKeep = 2, kManySteps = 400, kHead = 10, kTail = 60, kSwitchesShown = 150;
  size_t n = events.size();
  std::vector<bool> marked(n, false);
  for (size_t k : marks.preemptions) marked[k] = true;
  for (const auto& p : marks.pairs) marked[p.first] = marked[p.second] = true;
  for (const auto& p : marks.pending_pairs) marked[p.step] = true;
  std::vector<bool> shown(n, true);
  if (n > kManySteps) {
    std::fill(shown.begin(), shown.end(), false);
    for (size_t i = 0; i < kHead && i < n; ++i) shown[i] = true;
    for (size_t i = n - kTail; i < n; ++i) shown[i] = true;
    size_t switches = 0;
    for (size_t i = n - kTail; i > kHead && switches < kSwitchesShown; --i)
      if (events[i].thread != events[i - 1].thread) {
        shown[i] = shown[i - 1] = true;
        ++switches;
      }
  }
  // A long execution has many such pairs (every unordered access): the
  // latest kMarksShown marked steps are shown, the bug's end is there.
  constexpr size_t kMarksShown = 40;
  size_t forced = 0;
  for (size_t k = n; k-- > 0 && (n <= kManySteps || forced < kMarksShown);)
    if (marked[k]) {
      shown[k] = true;
      if (k > 0) shown[k - 1] = true;
      ++forced;
    }
  // Fold long runs of one thread among the shown steps.
  for (size_t start = 0; start < n;) {
    size_t end = start;
    while (end < n && events[end].thread == events[start].thread) ++end;
    if (end - start > kFoldAbove) {
      for (size_t k = start + kKeep; k + kKeep < end; ++k) {
        bool near_mark = marked[k] || (k + 1 < n && marked[k + 1]);
        if (!near_mark) shown[k] = false;
      }
    }
    start = end;
  }
  return shown;
}

}  // namespace ctrl

namespace ctrl {

namespace {

std::string step_number(const std::vector<shm::Event>& events, size_t k) { return std::to_string(events[k].step + 1); }

std::string actor_name(uint32_t t) { return t >= shm::kFlushActorBase ? "a store buffer" : "T" + std::to_string(t); }

}  // namespace

std::string step_note(const std::vector<shm::Event>& events, const CauseMarks& marks, size_t k) {
  std::string note;
  if (marks.preempts(k)) note += " preempts " + actor_name(events[k - 1].thread) + ";";
  std::vector<size_t> with = marks.partners(k);
  if (!with.empty()) {
    note += " decides, with step";
    if (with.size() > 1) note += "s";
    for (size_t i = 0; i < with.size() && i < 4; ++i) note += (i ? ", " : " ") + step_number(events, with[i]);
    if (with.size() > 4) note += ", ...";
    note += ";";
  }
  for (const auto& p : marks.pending_pairs)
    if (p.step == k) note += " " + actor_name(p.thread) + " then waits in " + called_name(p.pending) + ";";
  if (note.empty()) return note;
  note.pop_back();
  return "   <<" + note;
}

std::string cause_text(const std::vector<shm::Event>& events, const CauseMarks& marks, const Symbolizer& symbols) {
  if (marks.pairs.empty() && marks.pending_pairs.empty() && marks.preemptions.empty()) return "";
  std::string text = "\nwhat decided it (the orders another interleaving reverses):\n";
  auto object = [&](const shm::Event& e) {
    return e.addr && OpKind(e.kind) != OpKind::ProcessExit ? symbols.describe_data(e.addr) : std::string();
  };
  // The latest pairs: those nearest the bug.
  constexpr size_t kPairsShown = 12;
  size_t skipped = marks.pairs.size() > kPairsShown ? marks.pairs.size() - kPairsShown : 0;
  if (skipped) text += fmt::format("  ... {} earlier pairs\n", skipped);
  for (size_t i = skipped; i < marks.pairs.size(); ++i) {
    const auto& p = marks.pairs[i];
    const shm::Event &a = events[p.first], &b = events[p.second];
    // Two accesses that overlap: the first byte both touch (a wide load
    // may read two fields and race on the second only).
    std::string on = object(a);
    if (b.addr > a.addr && b.addr < a.addr + a.size &&
        (op_reads_memory(OpKind(a.kind)) || op_writes_memory(OpKind(a.kind))))
      on = symbols.describe_data(b.addr);
    text += fmt::format("  step {} ({} {}) before step {} ({} {}){}\n", a.step + 1, actor_name(a.thread),
                        called_name(OpKind(a.kind)), b.step + 1, actor_name(b.thread), called_name(OpKind(b.kind)),
                        on.empty() ? "" : ", both on " + on);
  }
  for (const auto& p : marks.pending_pairs) {
    const shm::Event& a = events[p.step];
    std::string on = p.addr ? symbols.describe_data(p.addr) : std::string();
    text += fmt::format("  step {} ({} {}) before {}'s {}{}, which never completes\n", a.step + 1, actor_name(a.thread),
                        called_name(OpKind(a.kind)), actor_name(p.thread), called_name(p.pending),
                        on.empty() ? "" : " on " + on);
  }
  if (!marks.preemptions.empty()) {
    text += "  preemptions:";
    size_t from = marks.preemptions.size() > kPairsShown ? marks.preemptions.size() - kPairsShown : 0;
    if (from) text += fmt::format(" ({} earlier ones, then)", from);
    for (size_t i = from; i < marks.preemptions.size(); ++i) {
      size_t k = marks.preemptions[i];
      text += fmt::format(" step {} ({} takes over from {})", events[k].step + 1, actor_name(events[k].thread),
                          actor_name(events[k - 1].thread));
    }
    text += "\n";
  }
  return text;
}

}  // namespace ctrl
