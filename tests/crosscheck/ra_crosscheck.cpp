// Cross-check of --model ra's exploration (analyses/WeakTraceStrategy.h)
// against the brute-force oracle (ra_enumerate.h), without running
// programs: a simulator runs each plan on the abstract program as the agent
// would (the plan's threads and Choices, then the sticky tail: the current
// thread while it can run, else the lowest; a read without a Choice reads
// memory, which holds the latest write not flagged kNotMoLast), and feeds
// the strategy the events.
// The strategy must reach every weak trace exactly once: as many complete
// consistent executions as the oracle counts, none redundant, and none the
// oracle rejects (each execution's reads-from checked on its own). Infeasible
// executions (the sticky tail's read of the latest write was not
// RA-consistent; WeakTraceStrategy.h) are wasted runs, not wrong counts:
// they are totalled, and refused only with --strict.
//
//   ra_crosscheck [--strict] [--explain] fixed      the hand-written cases (known counts)
//   ra_crosscheck seeds FIRST LAST [MAX_OPS MAX_EVENTS RMW]
//   ra_crosscheck program "r x; r x | r x; w x 1"
//   ra_crosscheck emit SEED MAX_OPS MAX_EVENTS OUT.c [RMW]
//                 writes the random program as C (threads created by main,
//                 libatomic loads and stores, and fetch-adds with RMW 1) and
//                 prints the oracle's count,
//                 for the cross-check of ctrl itself (ra_programs.cmake)
//   ra_crosscheck flow exponential_bug N
//                 prints the count of ra_flow_enumerate.h's oracle for
//                 samples/ra/exponential_bug.c with argument N (ra_flow.cmake)
// Exit 0 when every program agrees, 1 otherwise (each disagreement printed).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Operation.h"
#include "SharedRegion.h"
#include "WeakTraceStrategy.h"
#include "ra_enumerate.h"
#include "ra_flow_enumerate.h"

namespace {

using ra_oracle::Kind;
using ra_oracle::Program;

constexpr uint64_t kBase = 0x10000;

// The events of one execution of `p` under `plan`; `rf` (if given) gets
// each read's source as ra_oracle::consistent numbers them.
std::vector<ctrl::shm::Event> simulate(const Program& p, const ctrl::ExecutionPlan& plan,
                                       std::vector<int>* rf = nullptr) {
  std::vector<ctrl::shm::Event> out;
  std::vector<uint64_t> memory(size_t(p.vars), 0);
  std::vector<int> first(p.threads.size() + 1, 0);
  for (size_t t = 0; t < p.threads.size(); t++) first[t + 1] = first[t] + int(p.threads[t].size());
  std::vector<int> latest(size_t(p.vars), -1);  // per location: the event memory holds
  std::vector<int> event_of_step;
  if (rf) rf->assign(size_t(first.back()), -2);
  std::vector<size_t> pc(p.threads.size(), 0);
  uint32_t current = 0;
  for (uint32_t step = 0;; step++) {
    auto enabled = [&](uint32_t t) { return t < pc.size() && pc[t] < p.threads[t].size(); };
    uint32_t t;
    if (step < plan.prefix.size()) {
      t = plan.prefix[step];
      if (!enabled(t)) {
        std::fprintf(stderr, "plan step %u: thread %u cannot run\n", step, t);
        std::exit(3);
      }
    } else {
      t = current;
      if (!enabled(t)) {
        t = UINT32_MAX;
        for (uint32_t u = 0; u < pc.size(); u++)
          if (enabled(u)) {
            t = u;
            break;
          }
        if (t == UINT32_MAX) break;
      }
    }
    current = t;
    const ra_oracle::Op& op = p.threads[t][pc[t]++];
    ctrl::shm::Event e{};
    e.step = step;
    e.thread = uint16_t(t);
    e.addr = kBase + 8 * uint64_t(op.var);
    e.size = 4;
    e.order = uint8_t(ctrl::MemOrder::Relaxed);
    ctrl::shm::Choice c{};
    if (step < plan.choices.size()) c = plan.choices[step];
    uint64_t& m = memory[size_t(op.var)];
    uint64_t read = c.kind == ctrl::shm::ChoiceKind::ReadFrom ? c.value : m;
    int ev = first[t] + int(pc[t] - 1);
    event_of_step.push_back(ev);
    if (rf && op.kind != Kind::Store) {
      if (c.kind != ctrl::shm::ChoiceKind::ReadFrom)
        (*rf)[size_t(ev)] = latest[size_t(op.var)];
      else
        (*rf)[size_t(ev)] = c.from == ctrl::shm::kFromInit ? -1 : event_of_step[c.from];
    }
    if (op.kind != Kind::Load && !(c.flags & ctrl::shm::kNotMoLast)) latest[size_t(op.var)] = ev;
    switch (op.kind) {
      case Kind::Load:
        e.kind = uint16_t(ctrl::OpKind::AtomicLoad);
        e.value_read = read;
        break;
      case Kind::Store:
        e.kind = uint16_t(ctrl::OpKind::AtomicStore);
        e.aux = m;
        e.value_written = uint64_t(op.value);
        if (!(c.flags & ctrl::shm::kNotMoLast)) m = uint64_t(op.value);
        break;
      case Kind::FetchAdd:
        e.kind = uint16_t(ctrl::OpKind::AtomicRmw);
        e.rmw = uint8_t(ctrl::RmwOp::Add);
        e.aux = uint64_t(op.value);
        e.value_read = read;
        e.value_written = (read + uint64_t(op.value)) & 0xffffffff;
        if (!(c.flags & ctrl::shm::kNotMoLast)) m = e.value_written;
        break;
    }
    out.push_back(e);
  }
  return out;
}

bool strict = false;
bool explain = false;  // --explain: each execution's reads-from, and the oracle's verdict
uint64_t infeasible_total = 0, infeasible_programs = 0;

struct Result {
  uint64_t consistent = 0, infeasible = 0, redundant = 0, executions = 0;
  uint64_t rejected = 0;  // executions the strategy took for consistent that the oracle rejects
};

Result explore(const Program& p) {
  ctrl::WeakTraceStrategy s;
  Result r;
  while (auto plan = s.next()) {
    std::vector<int> rf;
    std::vector<ctrl::shm::Event> ev = simulate(p, *plan, &rf);
    ctrl::ExecutionSummary sum;
    sum.events = ev.data();
    sum.steps = ev.size();
    sum.complete = true;
    s.completed(sum);
    bool rejected = s.last_feasible() && !ra_oracle::consistent(p, rf);
    if (rejected) r.rejected++;
    if (explain) {
      std::string text;
      for (size_t i = 0; i < rf.size(); i++)
        if (rf[i] != -2) text += " " + std::to_string(i) + "<-" + (rf[i] < 0 ? "init" : std::to_string(rf[i]));
      std::string order;
      for (const auto& e : ev) order += std::to_string(e.thread);
      std::fprintf(stderr, "exec %llu [%s]%s: %s%s\n", (unsigned long long)r.executions, order.c_str(), text.c_str(),
                   s.last_feasible() ? "feasible" : "infeasible", rejected ? ", ORACLE REJECTS" : "");
    }
    if (++r.executions > 1000000) break;
  }
  auto c = s.model_counts();
  r.consistent = c->consistent;
  r.infeasible = c->infeasible;
  r.redundant = c->redundant;
  return r;
}

bool check(const Program& p, const std::string& name, long long known = -1) {
  uint64_t want = ra_oracle::count_weak_traces(p);
  Result got = explore(p);
  infeasible_total += got.infeasible;
  if (got.infeasible) infeasible_programs++;
  bool ok = got.consistent == want && got.rejected == 0 && got.redundant == 0 && (!strict || got.infeasible == 0) &&
            (known < 0 || uint64_t(known) == want);
  if (!ok)
    std::printf(
        "MISMATCH %s: %s: oracle %llu%s, ctrl %llu consistent (%llu the oracle rejects), %llu redundant, %llu "
        "infeasible\n",
        name.c_str(), ra_oracle::describe(p).c_str(), (unsigned long long)want,
        known >= 0 ? (" (known " + std::to_string(known) + ")").c_str() : "", (unsigned long long)got.consistent,
        (unsigned long long)got.rejected, (unsigned long long)got.redundant, (unsigned long long)got.infeasible);
  return ok;
}

// The two oracles agree: a load/store program as ra_flow_enumerate.h's
// (each load into a register nothing reads), counted both ways.
bool oracles_agree(const Program& p, const std::string& name) {
  ra_oracle::FlowProgram f;
  f.vars = p.vars;
  for (const auto& ops : p.threads) {
    f.threads.emplace_back();
    for (const ra_oracle::Op& o : ops) {
      ra_oracle::Instr in;
      in.op = o.kind == Kind::Load ? ra_oracle::Instr::Load : ra_oracle::Instr::Store;
      in.var = o.var;
      in.value = o.value;
      f.threads.back().push_back(in);
    }
    f.threads.back().push_back(ra_oracle::Instr{});
  }
  uint64_t straight = ra_oracle::count_weak_traces(p), flow = ra_oracle::count_flow_weak_traces(f).traces;
  if (straight != flow)
    std::printf("ORACLES DISAGREE %s: %s: ra_enumerate %llu, ra_flow_enumerate %llu\n", name.c_str(),
                ra_oracle::describe(p).c_str(), (unsigned long long)straight, (unsigned long long)flow);
  return straight == flow;
}

struct Fixed {
  const char* name;
  const char* text;
  long long known;
};

// Counts from the digest (seed001_tracer.md, sections 1.4, 3.5, 3.6, 5).
const Fixed kFixed[] = {
    {"fig1", "w x 1; r x | w x 2; r x", 3},
    {"sb", "w x 1; r y | w y 1; r x", 4},
    {"mp", "w x 1; w y 1 | r y; r x", 3},
    {"lb", "r x; w y 1 | r y; w x 1", 3},
    {"iriw", "w x 1 | w y 1 | r x; r y | r y; r x", 16},
    {"2+2w", "w x 1; w y 2 | w y 1; w x 2", 1},
    {"corr2", "w x 1 | w x 2 | r x; r x | r x; r x", 47},
    {"fig7", "r x | w x 2 | r y; w x 3 | r y; w x 4", 4},
    {"gap_3.6", "r x; r x | r x; w x 1", 3},
    {"gap_3.6_3threads", "r x | r x | r y; w x 1", 4},
    {"n_writers_3", "w x 1 | w x 2 | w x 3 | r x", 4},
    {"redundant_co_2", "w x 1; w x 1 | w x 1; w x 1 | r x; r x", 19},
    {"redundant_co_3", "w x 1; w x 1; w x 1 | w x 1; w x 1; w x 1 | r x; r x", 37},
    {"fadd2", "a x 1 | a x 1", 2},
    {"fadd_read", "a x 1 | a x 1 | r x", -1},
    {"fadd_store", "a x 1; r x | w x 5; a x 1", -1},
    // The smallest program that ran a weak trace twice: fetch-add 2 swapped
    // ahead of fetch-add 0 (2 reads init, 0 reads 2), then the store made 0
    // read it there too, which is 0's own node's "0 reads the store, 2 reads
    // init" (WeakTraceStrategy.h: a swapped node's schedules).
    {"fadd_store_fadd", "a x 1 | w x 2 | a x 1", 6},
};

}  // namespace

int main(int argc, char** argv) {
  for (; argc > 1 && std::string(argv[1]).rfind("--", 0) == 0; argv++, argc--) {
    if (std::string(argv[1]) == "--strict") strict = true;
    if (std::string(argv[1]) == "--explain") explain = true;
  }
  std::string mode = argc > 1 ? argv[1] : "fixed";
  int bad = 0, total = 0;
  if (mode == "fixed") {
    for (const Fixed& f : kFixed) {
      total++;
      if (!check(ra_oracle::parse(f.text), f.name, f.known)) bad++;
    }
    // The branching oracle on the load/store cases, and on the first 300
    // random load/store programs.
    for (const Fixed& f : kFixed) {
      Program p = ra_oracle::parse(f.text);
      bool rmw = false;
      for (const auto& ops : p.threads)
        for (const ra_oracle::Op& o : ops) rmw = rmw || o.kind == Kind::FetchAdd;
      if (rmw) continue;
      total++;
      if (!oracles_agree(p, f.name)) bad++;
    }
    for (uint64_t seed = 1; seed <= 300; seed++) {
      total++;
      if (!oracles_agree(ra_oracle::random_program(seed, 3, 8, false), "seed " + std::to_string(seed))) bad++;
    }
  } else if (mode == "program" && argc > 2) {
    Program p = ra_oracle::parse(argv[2]);
    Result r = explore(p);
    std::printf("oracle %llu; ctrl %llu consistent, %llu redundant, %llu infeasible, %llu executions\n",
                (unsigned long long)ra_oracle::count_weak_traces(p), (unsigned long long)r.consistent,
                (unsigned long long)r.redundant, (unsigned long long)r.infeasible, (unsigned long long)r.executions);
    return 0;
  } else if (mode == "flow" && argc > 3 && std::string(argv[2]) == "exponential_bug") {
    ra_oracle::FlowCount c = ra_oracle::count_flow_weak_traces(ra_oracle::exponential_bug(std::atoi(argv[3])));
    std::printf("%llu\n", (unsigned long long)c.traces);
    std::fprintf(stderr, "%llu consistent graphs visited\n", (unsigned long long)c.graphs);
    return 0;
  } else if (mode == "emit" && argc > 5) {
    bool rmw = argc > 6 && std::atoi(argv[6]) != 0;
    Program p =
        ra_oracle::random_program(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]), std::atoi(argv[4]), rmw);
    FILE* out = std::fopen(argv[5], "w");
    if (!out) return 2;
    std::fprintf(out, "/* %s */\n#include <pthread.h>\n\nstatic int x[4];\nstatic volatile int sink[4];\n",
                 ra_oracle::describe(p).c_str());
    for (size_t t = 0; t < p.threads.size(); t++) {
      std::fprintf(out, "static void *t%zu(void *arg) {\n  int s = 0;\n", t);
      for (const ra_oracle::Op& o : p.threads[t]) {
        if (o.kind == Kind::Load)
          std::fprintf(out, "  s += __atomic_load_n(&x[%d], __ATOMIC_ACQUIRE);\n", o.var);
        else if (o.kind == Kind::Store)
          std::fprintf(out, "  __atomic_store_n(&x[%d], %d, __ATOMIC_RELEASE);\n", o.var, o.value);
        else
          std::fprintf(out, "  s += __atomic_fetch_add(&x[%d], %d, __ATOMIC_ACQ_REL);\n", o.var, o.value);
      }
      std::fprintf(out, "  sink[%zu] = s;\n  return arg;\n}\n", t);  // a slot per thread: no race
    }
    std::fprintf(out, "int main(void) {\n  pthread_t t[%zu];\n", p.threads.size());
    for (size_t t = 0; t < p.threads.size(); t++) std::fprintf(out, "  pthread_create(&t[%zu], 0, t%zu, 0);\n", t, t);
    for (size_t t = 0; t < p.threads.size(); t++) std::fprintf(out, "  pthread_join(t[%zu], 0);\n", t);
    std::fprintf(out, "  return 0;\n}\n");
    std::fclose(out);
    std::printf("%llu\n", (unsigned long long)ra_oracle::count_weak_traces(p));
    return 0;
  } else if (mode == "seeds" && argc > 3) {
    uint64_t first = std::strtoull(argv[2], nullptr, 10), last = std::strtoull(argv[3], nullptr, 10);
    int max_ops = argc > 4 ? std::atoi(argv[4]) : 3;
    int max_events = argc > 5 ? std::atoi(argv[5]) : 8;
    bool rmw = argc > 6 && std::atoi(argv[6]) != 0;
    for (uint64_t seed = first; seed <= last; seed++) {
      total++;
      if (!check(ra_oracle::random_program(seed, max_ops, max_events, rmw), "seed " + std::to_string(seed))) bad++;
    }
  } else {
    std::fprintf(stderr,
                 "usage: ra_crosscheck fixed | seeds FIRST LAST [MAX_OPS MAX_EVENTS RMW] | program TEXT | flow "
                 "exponential_bug N\n");
    return 2;
  }
  std::printf("%d of %d programs agree with the oracle (%llu infeasible executions, in %llu programs)\n", total - bad,
              total, (unsigned long long)infeasible_total, (unsigned long long)infeasible_programs);
  return bad ? 1 : 0;
}
