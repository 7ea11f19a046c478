// Cross-check of ctrl's DPOR against brute force: generates a small
// concurrent C program (random from a seed, or one of a few hand-written
// cases with known counts) and counts its Mazurkiewicz classes by enumerating
// every interleaving.
//
//   gen_and_count gen CASE OUT.c [EQUIV]
//                                     writes the program, prints
//                                     "classes N interleavings M events E threads T"
//                                     EQUIV: mazurkiewicz (default), rf-sc or rf-tso
//   gen_and_count verify CASE BINARY [OBJDUMP]
//                                     checks with objdump that the compiled
//                                     workers do exactly the modelled accesses,
//                                     in program order (exit 1 and a diff if not)
//   gen_and_count classes CASE [EQUIV] prints one interleaving per class
//   gen_and_count fixed               lists the hand-written cases
//
// CASE is a seed (decimal) or fixed:NAME.
//
// The program: 2-4 worker threads w0..w3 created by main and then joined,
// 1-3 shared ints g0..g2 accessed only with relaxed __atomic builtins (plain
// mov for loads and stores, lock xadd / lock add, xchg, lock cmpxchg), at most
// one mutex m, and per worker 1-4 such operations, some of them inside
// lock/unlock pairs. Values read are summed into a local that the worker
// stores last into its own slot sink[t]: one plain store per thread to an
// address nobody else touches, which conflicts with nothing and so does not
// change the count.
//
// The count uses ctrl's dependence relation (analyses/Dependence.h), judged
// on the values of each interleaving: two events of different threads
// conflict when both are operations on the mutex, or when they access the
// same variable and one of them writes. A compare-exchange that fails, an
// exchange that writes the value already there and a fetch_add of 0 only
// read; a compare-exchange that succeeds writes (even the same value).
// Two interleavings are equivalent iff they give every event the same
// read/write nature and order every conflicting pair the same way; the class
// count is the number of distinct such signatures among the interleavings the
// mutex allows. Thread creation, start, exit and join add no classes (every
// interleaving of the workers' operations can happen once main has created
// them all, and main joins a worker only after its exit), so they are left
// out of the model.
//
// Reads-from classes (EQUIV rf-sc, rf-tso; --equivalence rf): two executions
// are equivalent iff every read reads from the same write (or the initial
// value). Reads are loads, read-modify-writes (all of them: a failed
// compare-exchange too) and locks (reading the unlock before them, or the
// mutex's initial state); writes are the events the Mazurkiewicz count calls
// writes (a read-modify-write that leaves memory as it was only reads, so
// nobody reads from it) and unlocks. rf-sc enumerates the interleavings;
// rf-tso runs the x86-TSO machine (a FIFO store buffer per thread, a load
// reads its thread's newest buffered store there or else memory; locked
// instructions, lock and unlock wait for an empty buffer; a flush commits the
// oldest entry) over every order of thread steps and flushes. The count is
// the number of distinct rf maps among the complete executions.

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

constexpr int kMaxThreads = 4;
constexpr int kMaxVars = 3;
constexpr int kMaxEvents = 16;       // the signature's bit matrix
constexpr int kMaxMemOps = 11;       // loads, stores and read-modify-writes, all threads
constexpr int kMaxTotalEvents = 14;  // the same plus locks and unlocks
constexpr uint64_t kMaxInterleavings = 1500000;
// ctrl runs about 1-2 ms per execution: bigger programs are drawn again.
constexpr size_t kMaxClasses = 2000;

enum class Kind { Load, Store, FetchAdd, Exchange, Cas, Lock, Unlock };

struct Op {
  Kind kind;
  int var = 0;
  int a = 0;               // store / fetch_add / exchange constant; cas expected
  int b = 0;               // cas desired
  bool use_result = true;  // fetch_add only: false gives `lock add`
};

struct Program {
  std::string name;
  int vars = 1;
  bool mutex = false;
  std::array<int, kMaxVars> init{};
  std::vector<std::vector<Op>> threads;
  long long known = -1;  // the count a hand-written case must have
  // Its reads-from classes under SC and TSO, when known independently (-1: not).
  long long known_rf_sc = -1, known_rf_tso = -1;
};

// splitmix64: the same sequence on every platform and compiler.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x1234567ull) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return int(next() % uint64_t(n)); }
};

int event_count(const Program& p) {
  int n = 0;
  for (const auto& t : p.threads) n += int(t.size());
  return n;
}

int mem_op_count(const Program& p) {
  int n = 0;
  for (const auto& t : p.threads)
    for (const auto& o : t) n += o.kind != Kind::Lock && o.kind != Kind::Unlock;
  return n;
}

// Number of interleavings ignoring the mutex (a multinomial), saturated.
uint64_t multinomial(const Program& p) {
  long double r = 1;
  int total = 0;
  for (const auto& t : p.threads) {
    for (size_t k = 1; k <= t.size(); ++k) {
      ++total;
      r = r * total / k;
    }
  }
  return r > 1e18L ? uint64_t(1e18) : uint64_t(r + 0.5L);
}

size_t count_classes(const Program& p);

Op random_op(Rng& rng, int vars) {
  Op o;
  o.var = rng.below(vars);
  int k = rng.below(100);
  if (k < 28) {
    o.kind = Kind::Load;
  } else if (k < 48) {
    o.kind = Kind::Store;
    o.a = rng.below(3);
  } else if (k < 68) {
    o.kind = Kind::FetchAdd;
    o.a = rng.below(3);  // 0: only reads
    o.use_result = rng.below(3) != 0;
  } else if (k < 84) {
    o.kind = Kind::Exchange;
    o.a = rng.below(3);
  } else {
    o.kind = Kind::Cas;
    o.a = rng.below(3);
    o.b = rng.below(3);
  }
  return o;
}

Program random_program(uint64_t seed) {
  Rng rng(seed);
  for (;;) {
    Program p;
    p.name = std::to_string(seed);
    int nthreads = 2 + rng.below(3);
    p.vars = 1 + rng.below(3);
    p.mutex = rng.below(5) < 2;
    for (int v = 0; v < p.vars; ++v) p.init[v] = rng.below(3) == 0 ? 1 : 0;
    std::vector<int> counts(nthreads);
    for (auto& c : counts) c = 1 + rng.below(4);
    auto sum = [&] {
      int s = 0;
      for (int c : counts) s += c;
      return s;
    };
    while (sum() > kMaxMemOps) {
      int t = rng.below(nthreads);
      if (counts[t] > 1) --counts[t];
    }
    for (int t = 0; t < nthreads; ++t) {
      std::vector<Op> ops;
      for (int i = 0; i < counts[t]; ++i) ops.push_back(random_op(rng, p.vars));
      std::vector<Op> seq;
      if (p.mutex && rng.below(3) != 0) {
        // One or two critical sections of 1-2 operations (no nesting).
        int sections = counts[t] >= 3 && rng.below(3) == 0 ? 2 : 1;
        std::vector<int> starts, ends;  // [start, end) in ops
        int from = 0;
        for (int s = 0; s < sections && from < counts[t]; ++s) {
          int left = counts[t] - from;
          int start = from + rng.below(s == 0 && sections == 2 ? std::max(1, left - 1) : left);
          int len = 1 + rng.below(std::min(2, counts[t] - start));
          starts.push_back(start);
          ends.push_back(start + len);
          from = start + len;
        }
        for (int i = 0; i < counts[t]; ++i) {
          for (int s : starts)
            if (s == i) seq.push_back(Op{Kind::Lock});
          seq.push_back(ops[i]);
          for (int e : ends)
            if (e == i + 1) seq.push_back(Op{Kind::Unlock});
        }
      } else {
        seq = ops;
      }
      p.threads.push_back(seq);
    }
    if (event_count(p) <= kMaxTotalEvents && multinomial(p) <= kMaxInterleavings && count_classes(p) <= kMaxClasses)
      return p;
  }
}

Op ld(int v) { return Op{Kind::Load, v}; }
Op st(int v, int c) { return Op{Kind::Store, v, c}; }
Op add(int v, int c) { return Op{Kind::FetchAdd, v, c}; }
Op xchg(int v, int c) { return Op{Kind::Exchange, v, c}; }
Op cas(int v, int e, int d) { return Op{Kind::Cas, v, e, d}; }
Op lk() { return Op{Kind::Lock}; }
Op ul() { return Op{Kind::Unlock}; }

// Hand-written cases whose counts are known independently of the brute force.
std::vector<Program> fixed_programs() {
  std::vector<Program> v;
  auto make = [&](std::string name, int vars, bool mutex, std::vector<std::vector<Op>> threads, long long known,
                  std::array<int, kMaxVars> init = {}) {
    Program p;
    p.name = "fixed:" + name;
    p.vars = vars;
    p.mutex = mutex;
    p.threads = std::move(threads);
    p.known = known;
    p.init = init;
    v.push_back(p);
  };
  // The reads-from counts of the case made last, under SC and TSO.
  auto rf = [&](long long sc, long long tso) {
    v.back().known_rf_sc = sc;
    v.back().known_rf_tso = tso;
  };
  // One writer, N readers of the same location: each reader is before or
  // after the write, independently: 2^N.
  make("readers1", 1, false, {{st(0, 1)}, {ld(0)}}, 2);
  make("readers2", 1, false, {{st(0, 1)}, {ld(0)}, {ld(0)}}, 4);
  make("readers3", 1, false, {{st(0, 1)}, {ld(0)}, {ld(0)}, {ld(0)}}, 8);
  rf(8, 8);
  // Store buffering: x=1; r1=y || y=1; r2=x. Not both loads first: 3.
  make("store_buffering", 2, false, {{st(0, 1), ld(1)}, {st(1, 1), ld(0)}}, 3);
  // Reads-from: the same 3 under SC; TSO adds both loads reading 0: 4.
  rf(3, 4);
  // Two increments: 2 orders. Two fetch_add of 0 only read: 1.
  make("fetch_add1_x2", 1, false, {{add(0, 1)}, {add(0, 1)}}, 2);
  make("fetch_add0_x2", 1, false, {{add(0, 0)}, {add(0, 0)}}, 1);
  rf(1, 1);
  // Exchanges that write the value already there only read: 1.
  make("exchange_same_x2", 1, false, {{xchg(0, 0)}, {xchg(0, 0)}}, 1);
  // Compare-exchanges that both fail only read: 1. Both from 0 to 1: the
  // first wins, the second fails: 2.
  make("cas_fail_x2", 1, false, {{cas(0, 2, 1)}, {cas(0, 2, 1)}}, 1);
  make("cas_race_x2", 1, false, {{cas(0, 0, 1)}, {cas(0, 0, 1)}}, 2);
  // Three writers of one location: 3! orders.
  make("writers3", 1, false, {{st(0, 1)}, {st(0, 2)}, {st(0, 1)}}, 6);
  // Nobody reads: one reads-from class.
  rf(1, 1);
  // Independent threads: 1.
  make("independent3", 3, false, {{st(0, 1), ld(0)}, {st(1, 1), ld(1)}, {add(2, 1), ld(2)}}, 1);
  // Critical sections: the order of the sections, 2 and 3!.
  make("mutex2", 1, true, {{lk(), st(0, 1), ul()}, {lk(), ld(0), ul()}}, 2);
  make("mutex3_empty", 1, true, {{lk(), ul()}, {lk(), ul()}, {lk(), ul()}}, 6);
  // Each lock reads the unlock before it: the 3! orders stay apart.
  rf(6, 6);
  // Message passing: data=1; flag=1 || r1=flag; r2=data. Each load before
  // or after its store, except r1 after flag=1 with r2 before data=1 (a
  // cycle): 3.
  make("message_passing", 2, false, {{st(0, 1), st(1, 1)}, {ld(1), ld(0)}}, 3);
  // TSO keeps store order and load order: 3 under both.
  rf(3, 3);
  // Read-modify-writes that only read, next to a reader and a writer: each
  // of the two reads before or after the write: 4. (Once found by this test:
  // a sleeping no-op fetch_add / failing compare-exchange was woken by the
  // other read, giving a fifth, redundant execution.)
  make("noop_fetch_add_reader_writer", 1, false, {{add(0, 0)}, {ld(0)}, {st(0, 1)}}, 4);
  make("failed_cas_reader_writer", 1, false, {{cas(0, 2, 1)}, {ld(0)}, {st(0, 1)}}, 4);
  // exchange(x, 0) on x == 0 only reads before x = 1, writes after it: the
  // 6 orders, where exchange and load commute before the store: 5.
  make("same_exchange_reader_writer", 1, false, {{xchg(0, 0)}, {ld(0)}, {st(0, 1)}}, 5);
  // A critical section writing x, a reader of x, an empty critical section:
  // (section order) x (read before or after the write): 4.
  make("mutex_writer_reader_empty", 1, true, {{lk(), st(0, 1), ul()}, {ld(0)}, {lk(), ul()}}, 4);
  // x = 2 || exchange(x, 0) || r = x || r = x, from x == 0. Exchange before
  // the store: it only reads, each load before or after the store: 4.
  // Exchange after the store: it writes, each load before the store, between
  // the two or after the exchange: 9. In all 13. (--dpor optimal explored 12:
  // not both loads, then the store, then the writing exchange.)
  make("exchange_store_two_readers", 1, false, {{st(0, 2)}, {xchg(0, 0)}, {ld(0)}, {ld(0)}}, 13);
  // Loads and stores only. --dpor optimal explored 71: it reversed races
  // with only the events between the two racing ones, and a thread asleep
  // that commutes with that shorter sequence pruned a reversal needed here.
  // 72 by this brute force and by the unit test's separate one
  // (OptimalDpor.ReversalTakesInEventsAfterTheRace).
  make("reversal_after_race", 3, false,
       {{ld(1), st(1, 5)}, {st(0, 7), ld(2)}, {ld(1), ld(0), st(2, 0)}, {st(1, 2), ld(0)}}, 72);
  return v;
}

bool parse_case(const std::string& s, Program& out) {
  if (s.rfind("fixed:", 0) == 0) {
    for (auto& p : fixed_programs())
      if (p.name == s) {
        out = p;
        return true;
      }
    return false;
  }
  char* end = nullptr;
  unsigned long long seed = strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end) return false;
  out = random_program(seed);
  return true;
}

// ---------------------------------------------------------------- C source

// The program of one case. With a prefix (a batch: many cases in one
// binary, see batch_source_of), every name of the case starts with it and
// its main is `<prefix>main`, called by the batch's main.
std::string source_of(const Program& p, const std::string& prefix = "") {
  std::ostringstream o;
  const std::string& x = prefix;
  o << "// ctrl crosscheck case " << p.name << " (generated by gen_and_count)\n";
  if (x.empty()) o << "#include <pthread.h>\n\n#define R __ATOMIC_RELAXED\n\n";
  for (int v = 0; v < p.vars; ++v) o << "int " << x << "g" << v << " = " << p.init[v] << ";\n";
  o << "int " << x << "sink[" << kMaxThreads << "];\n";
  if (p.mutex) o << "pthread_mutex_t " << x << "m = PTHREAD_MUTEX_INITIALIZER;\n";
  for (size_t t = 0; t < p.threads.size(); ++t) {
    o << "\nvoid *" << x << "w" << t << "(void *arg) {\n  int acc = 0;\n";
    for (const Op& op : p.threads[t]) {
      std::string g = "&" + x + "g" + std::to_string(op.var);
      switch (op.kind) {
        case Kind::Load:
          o << "  acc += __atomic_load_n(" << g << ", R);\n";
          break;
        case Kind::Store:
          o << "  __atomic_store_n(" << g << ", " << op.a << ", R);\n";
          break;
        case Kind::FetchAdd:
          o << "  " << (op.use_result ? "acc += " : "") << "__atomic_fetch_add(" << g << ", " << op.a << ", R);\n";
          break;
        case Kind::Exchange:
          o << "  acc += __atomic_exchange_n(" << g << ", " << op.a << ", R);\n";
          break;
        case Kind::Cas:
          o << "  { int e = " << op.a << "; acc += __atomic_compare_exchange_n(" << g << ", &e, " << op.b
            << ", 0, R, R); acc += e; }\n";
          break;
        case Kind::Lock:
          o << "  pthread_mutex_lock(&" << x << "m);\n";
          break;
        case Kind::Unlock:
          o << "  pthread_mutex_unlock(&" << x << "m);\n";
          break;
      }
    }
    o << "  " << x << "sink[" << t << "] = acc;\n  return 0;\n}\n";
  }
  o << "\nint " << x << "main(void) {\n  pthread_t th[" << p.threads.size() << "];\n";
  for (size_t t = 0; t < p.threads.size(); ++t)
    o << "  pthread_create(&th[" << t << "], 0, " << x << "w" << t << ", 0);\n";
  for (size_t t = 0; t < p.threads.size(); ++t) o << "  pthread_join(th[" << t << "], 0);\n";
  o << "  return 0;\n}\n";
  return o.str();
}

// The prefix of a batch's case k.
std::string batch_prefix(size_t k) { return "c" + std::to_string(k) + "_"; }

// Many cases in one program (compiling and linking one program per case
// was most of the cross-check's time): `batch K` runs case K's main, with
// the same threads and accesses as the case's own program.
std::string batch_source_of(const std::vector<Program>& cases) {
  std::ostringstream o;
  o << "// ctrl crosscheck batch of " << cases.size() << " cases (generated by gen_and_count)\n";
  o << "#include <pthread.h>\n#include <stdlib.h>\n\n#define R __ATOMIC_RELAXED\n";
  for (size_t k = 0; k < cases.size(); ++k) o << "\n" << source_of(cases[k], batch_prefix(k));
  o << "\nint main(int argc, char **argv) {\n  switch (argc == 2 ? atoi(argv[1]) : -1) {\n";
  for (size_t k = 0; k < cases.size(); ++k) o << "    case " << k << ": return " << batch_prefix(k) << "main();\n";
  o << "  }\n  return 2;\n}\n";
  return o.str();
}

// ---------------------------------------------------------------- brute force

struct Signature {
  std::array<uint64_t, kMaxEvents * kMaxEvents / 64> before{};  // bit x*16+y: x before y, conflicting
  uint32_t writes = 0;                                          // per event: it wrote
  bool operator==(const Signature& o) const { return before == o.before && writes == o.writes; }
};
struct SignatureHash {
  size_t operator()(const Signature& s) const {
    uint64_t h = s.writes * 0x9E3779B97F4A7C15ull;
    for (uint64_t w : s.before) h = (h ^ w) * 0x100000001B3ull + (h >> 29);
    return size_t(h);
  }
};

struct Counter {
  const Program& p;
  int nthreads;
  std::vector<int> base;  // global index of each thread's first event
  std::unordered_set<Signature, SignatureHash> classes;
  uint64_t interleavings = 0;
  bool want_examples = false;
  std::vector<std::pair<Signature, std::string>> examples;

  // DFS state.
  std::array<int, kMaxThreads> pc{};
  std::array<int, kMaxVars> mem{};
  int holder = -1;
  struct Done {
    int id, thread;
    bool mutex, write;
    int var;
  };
  std::vector<Done> done;
  Signature sig;
  std::vector<std::string> trail;

  explicit Counter(const Program& prog) : p(prog), nthreads(int(prog.threads.size())) {
    int n = 0;
    for (const auto& t : p.threads) {
      base.push_back(n);
      n += int(t.size());
    }
    mem = p.init;
  }

  static std::string describe(int t, const Op& op, bool write) {
    std::ostringstream o;
    o << "T" << t << ":";
    switch (op.kind) {
      case Kind::Load:
        o << "load(g" << op.var << ")";
        break;
      case Kind::Store:
        o << "store(g" << op.var << "," << op.a << ")";
        break;
      case Kind::FetchAdd:
        o << "fetch_add(g" << op.var << "," << op.a << ")";
        break;
      case Kind::Exchange:
        o << "exchange(g" << op.var << "," << op.a << ")";
        break;
      case Kind::Cas:
        o << "cas(g" << op.var << "," << op.a << "->" << op.b << ")";
        break;
      case Kind::Lock:
        o << "lock";
        break;
      case Kind::Unlock:
        o << "unlock";
        break;
    }
    if (op.kind != Kind::Lock && op.kind != Kind::Unlock) o << (write ? "[w]" : "[r]");
    return o.str();
  }

  void dfs() {
    bool any = false;
    for (int t = 0; t < nthreads; ++t) {
      if (pc[t] >= int(p.threads[t].size())) continue;
      const Op& op = p.threads[t][pc[t]];
      if (op.kind == Kind::Lock && holder != -1) continue;  // not enabled
      any = true;
      // Perform.
      auto saved_mem = mem;
      int saved_holder = holder;
      auto saved_sig = sig;
      bool write = false, mutex = false;
      int& x = mem[op.var];
      switch (op.kind) {
        case Kind::Load:
          break;
        case Kind::Store:
          x = op.a;
          write = true;
          break;
        case Kind::FetchAdd:
          write = op.a != 0;
          x += op.a;
          break;
        case Kind::Exchange:
          write = x != op.a;
          x = op.a;
          break;
        case Kind::Cas:
          if (x == op.a) {
            x = op.b;
            write = true;
          }
          break;
        case Kind::Lock:
          holder = t;
          mutex = true;
          break;
        case Kind::Unlock:
          holder = -1;
          mutex = true;
          break;
      }
      int id = base[t] + pc[t];
      for (const Done& d : done) {
        if (d.thread == t) continue;
        bool conflict = mutex ? d.mutex : (!d.mutex && d.var == op.var && (d.write || write));
        if (conflict) {
          int bitno = d.id * kMaxEvents + id;
          sig.before[bitno / 64] |= uint64_t(1) << (bitno % 64);
        }
      }
      if (write) sig.writes |= 1u << id;
      done.push_back(Done{id, t, mutex, write, op.var});
      ++pc[t];
      if (want_examples) trail.push_back(describe(t, op, write));

      dfs();

      if (want_examples) trail.pop_back();
      --pc[t];
      done.pop_back();
      sig = saved_sig;
      holder = saved_holder;
      mem = saved_mem;
    }
    if (!any) {
      bool finished = true;
      for (int t = 0; t < nthreads; ++t) finished &= pc[t] >= int(p.threads[t].size());
      if (!finished) {
        fprintf(stderr, "gen_and_count: case %s can deadlock (generator bug)\n", p.name.c_str());
        exit(3);
      }
      ++interleavings;
      if (classes.insert(sig).second && want_examples) {
        std::string s;
        for (const auto& e : trail) s += (s.empty() ? "" : " ") + e;
        examples.emplace_back(sig, s);
      }
    }
  }
};

size_t count_classes(const Program& p) {
  Counter c(p);
  c.dfs();
  return c.classes.size();
}

// Reads-from classes under SC or x86-TSO (see the header): the signature of
// an execution is, per event, 0 when it does not read, 1 when it reads the
// initial value (or a mutex never unlocked), 2 + the writer's id otherwise.
struct RfCounter {
  using RfSignature = std::array<int8_t, kMaxEvents>;
  struct RfHash {
    size_t operator()(const RfSignature& s) const {
      uint64_t h = 0xcbf29ce484222325ull;
      for (int8_t v : s) h = (h ^ uint8_t(v)) * 0x100000001B3ull;
      return size_t(h);
    }
  };
  struct Buffered {
    int var, value, id;
  };

  const Program& p;
  const bool tso;
  int nthreads;
  std::vector<int> base;
  std::unordered_set<RfSignature, RfHash> classes;
  uint64_t interleavings = 0;
  bool want_examples = false;
  std::vector<std::pair<RfSignature, std::string>> examples;

  std::array<int, kMaxThreads> pc{};
  std::array<int, kMaxVars> mem{};
  std::array<int, kMaxVars> writer{};  // id of the write memory holds, -1: the initial value
  std::array<std::vector<Buffered>, kMaxThreads> buffer;
  int holder = -1;
  int last_unlock = -1;
  RfSignature sig{};
  std::vector<std::string> trail;

  RfCounter(const Program& prog, bool tso_model) : p(prog), tso(tso_model), nthreads(int(prog.threads.size())) {
    int n = 0;
    for (const auto& t : p.threads) {
      base.push_back(n);
      n += int(t.size());
    }
    mem = p.init;
    writer.fill(-1);
  }

  // What thread t's load of var finds: its newest buffered store there, or memory.
  std::pair<int, int> find(int t, int var) const {
    for (auto it = buffer[t].rbegin(); it != buffer[t].rend(); ++it)
      if (it->var == var) return {it->value, it->id};
    return {mem[var], writer[var]};
  }

  static int8_t code(int writer_id) { return int8_t(writer_id < 0 ? 1 : 2 + writer_id); }

  // Interleavings below each state already walked. Two interleavings that
  // reach the same state (threads' positions, memory and who wrote it, the
  // store buffers, the mutex) with the same reads-from so far complete the
  // same way: the classes below were counted by the first. Exact, and what
  // keeps x86-TSO's store-buffer machine countable (seed 1891: 771,891,120
  // interleavings, 50 s without it).
  std::unordered_map<std::string, uint64_t> walked;

  std::string state_key() const {
    std::string k;
    auto put = [&k](const void* data, size_t n) { k.append(static_cast<const char*>(data), n); };
    put(pc.data(), sizeof(int) * size_t(nthreads));
    put(mem.data(), sizeof mem);
    put(writer.data(), sizeof writer);
    put(&holder, sizeof holder);
    put(&last_unlock, sizeof last_unlock);
    for (int t = 0; t < nthreads; ++t) {
      int n = int(buffer[t].size());
      put(&n, sizeof n);
      for (const Buffered& b : buffer[t]) put(&b, sizeof b);
    }
    put(sig.data(), sizeof sig);
    return k;
  }

  void dfs() {
    // Examples need each interleaving's own trail: no shortcut then.
    std::string key;
    uint64_t before = interleavings;
    if (!want_examples) {
      key = state_key();
      if (auto it = walked.find(key); it != walked.end()) {
        interleavings += it->second;
        return;
      }
    }
    dfs_moves();
    if (!want_examples) walked.emplace(std::move(key), interleavings - before);
  }

  void dfs_moves() {
    bool any = false;
    for (int t = 0; t < nthreads; ++t) {
      // A flush of t's oldest buffered store.
      if (!buffer[t].empty()) {
        any = true;
        Buffered b = buffer[t].front();
        auto saved_mem = mem;
        auto saved_writer = writer;
        buffer[t].erase(buffer[t].begin());
        mem[b.var] = b.value;
        writer[b.var] = b.id;
        if (want_examples) trail.push_back("flush" + std::to_string(t) + "(g" + std::to_string(b.var) + ")");
        dfs();
        if (want_examples) trail.pop_back();
        buffer[t].insert(buffer[t].begin(), b);
        mem = saved_mem;
        writer = saved_writer;
      }
      if (pc[t] >= int(p.threads[t].size())) continue;
      const Op& op = p.threads[t][pc[t]];
      // Locked instructions, lock and unlock wait for an empty buffer.
      bool drains = op.kind != Kind::Load && op.kind != Kind::Store;
      if (drains && !buffer[t].empty()) continue;
      if (op.kind == Kind::Lock && holder != -1) continue;
      any = true;
      int id = base[t] + pc[t];
      auto saved_mem = mem;
      auto saved_writer = writer;
      int saved_holder = holder, saved_unlock = last_unlock;
      auto saved_sig = sig;
      bool write = false;
      int& x = mem[op.var];
      switch (op.kind) {
        case Kind::Load:
          sig[id] = code(find(t, op.var).second);
          break;
        case Kind::Store:
          write = true;
          if (tso)
            buffer[t].push_back(Buffered{op.var, op.a, id});
          else
            x = op.a;
          break;
        case Kind::FetchAdd:
          sig[id] = code(writer[op.var]);
          write = op.a != 0;
          x += op.a;
          break;
        case Kind::Exchange:
          sig[id] = code(writer[op.var]);
          write = x != op.a;
          x = op.a;
          break;
        case Kind::Cas:
          sig[id] = code(writer[op.var]);
          if (x == op.a) {
            x = op.b;
            write = true;
          }
          break;
        case Kind::Lock:
          sig[id] = code(last_unlock);
          holder = t;
          break;
        case Kind::Unlock:
          holder = -1;
          last_unlock = id;
          break;
      }
      if (write && !(tso && op.kind == Kind::Store)) writer[op.var] = id;
      ++pc[t];
      if (want_examples) trail.push_back(Counter::describe(t, op, write));

      dfs();

      if (want_examples) trail.pop_back();
      --pc[t];
      if (tso && op.kind == Kind::Store) buffer[t].pop_back();
      sig = saved_sig;
      holder = saved_holder;
      last_unlock = saved_unlock;
      writer = saved_writer;
      mem = saved_mem;
    }
    if (!any) {
      for (int t = 0; t < nthreads; ++t)
        if (pc[t] < int(p.threads[t].size())) {
          fprintf(stderr, "gen_and_count: case %s can deadlock (generator bug)\n", p.name.c_str());
          exit(3);
        }
      ++interleavings;
      if (classes.insert(sig).second && want_examples) {
        std::string s;
        for (const auto& e : trail) s += (s.empty() ? "" : " ") + e;
        examples.emplace_back(sig, s);
      }
    }
  }
};

// ---------------------------------------------------------------- objdump check

// The accesses a worker must make, in order, as tokens: "load g0",
// "store g1", "rmw g0" (lock xadd/add/sub/inc), "xchg g2", "cas g0", "lock",
// "unlock", "store sink".
std::vector<std::string> expected_tokens(const Program& p, int t, const std::string& prefix) {
  std::vector<std::string> v;
  for (const Op& op : p.threads[t]) {
    std::string g = prefix + "g" + std::to_string(op.var);
    switch (op.kind) {
      case Kind::Load:
        v.push_back("load " + g);
        break;
      case Kind::Store:
        v.push_back("store " + g);
        break;
      case Kind::FetchAdd:
        v.push_back("rmw " + g);
        break;
      case Kind::Exchange:
        v.push_back("xchg " + g);
        break;
      case Kind::Cas:
        v.push_back("cas " + g);
        break;
      case Kind::Lock:
        v.push_back("lock");
        break;
      case Kind::Unlock:
        v.push_back("unlock");
        break;
    }
  }
  v.push_back("store " + prefix + "sink");
  return v;
}

// Checks that the binary's workers do exactly the modelled accesses, for
// each case (its prefix: "" for a case's own program, batch_prefix(k) in a
// batch), and that nothing else touches the shared variables. Returns the
// problems of each case.
std::vector<std::vector<std::string>> verify(const std::vector<Program>& cases,
                                             const std::vector<std::string>& prefixes, const std::string& binary,
                                             const std::string& objdump) {
  std::vector<std::vector<std::string>> problems(cases.size());
  std::map<std::string, size_t> case_of_prefix;
  for (size_t k = 0; k < prefixes.size(); ++k) case_of_prefix[prefixes[k]] = k;
  auto everyone = [&](const std::string& what) {
    for (auto& p : problems) p.push_back(what);
  };
  std::string cmd = "'" + objdump + "' -d --no-show-raw-insn '" + binary + "'";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) {
    everyone("popen objdump failed");
    return problems;
  }
  std::map<std::string, std::vector<std::string>> tokens;  // function -> tokens
  std::string fn;
  bool worker = false;
  char line[4096];
  static const std::regex fn_re(R"(^[0-9a-f]+ <([^>]+)>:)");
  static const std::regex worker_re(R"(^(c[0-9]+_)?w[0-9]$)");
  static const std::regex insn_re(R"(^\s*[0-9a-f]+:\s+(.*)$)");
  static const std::regex sym_re(R"(<((c[0-9]+_)?(g[0-9]|sink))(\+0x[0-9a-f]+)?>)");
  static const std::regex call_re(R"(^(call|jmp)\s+[0-9a-f]+ <(pthread_mutex_(un)?lock)@plt>)");
  while (fgets(line, sizeof line, f)) {
    std::string s(line);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    std::smatch m;
    if (std::regex_search(s, m, fn_re)) {
      fn = m[1];
      worker = std::regex_match(fn, worker_re) && fn.back() < char('0' + kMaxThreads);
      continue;
    }
    if (!std::regex_match(s, m, insn_re)) continue;
    std::string insn = m[1];
    std::smatch c;
    if (std::regex_search(insn, c, call_re)) {
      if (worker) tokens[fn].push_back(c[3].matched ? "unlock" : "lock");
      continue;
    }
    std::smatch g;
    bool shared = std::regex_search(insn, g, sym_re);
    if (!worker) {
      if (shared && fn != "_start" && fn.rfind("__", 0) != 0 && fn.find('@') == std::string::npos) {
        auto owner = case_of_prefix.find(g[2].matched ? std::string(g[2]) : std::string());
        std::string what = "shared access outside the workers, in " + fn + ": " + insn;
        if (owner == case_of_prefix.end())
          everyone(what);
        else
          problems[owner->second].push_back(what);
      }
      continue;
    }
    // A memory operand other than the stack, not a lea/nop.
    std::string mnem = insn.substr(0, insn.find_first_of(" \t"));
    bool memory = insn.find('(') != std::string::npos && mnem != "lea" && insn.find("nop") == std::string::npos;
    if (!memory) continue;
    if (!shared) {
      if (insn.find("(%rsp)") == std::string::npos) tokens[fn].push_back("unexpected memory access: " + insn);
      continue;
    }
    std::string sym = g[1];
    std::string operands = insn.substr(mnem.size());
    std::string kind;
    if (mnem == "lock") {
      std::string rest = operands.substr(operands.find_first_not_of(" \t"));
      std::string op = rest.substr(0, rest.find_first_of(" \t"));
      if (op.rfind("cmpxchg", 0) == 0)
        kind = "cas";
      else if (op.rfind("xadd", 0) == 0 || op.rfind("add", 0) == 0 || op.rfind("sub", 0) == 0 ||
               op.rfind("inc", 0) == 0 || op.rfind("dec", 0) == 0)
        kind = "rmw";
      else
        kind = "?lock " + op;
    } else if (mnem.rfind("xchg", 0) == 0) {
      kind = "xchg";
    } else if (mnem.rfind("mov", 0) == 0 && mnem.find("movs") != 0 && mnem.find("movz") != 0) {
      // AT&T: source first. A memory destination is the last operand.
      size_t comma = operands.rfind(',');
      std::string dst = comma == std::string::npos ? operands : operands.substr(comma + 1);
      kind = dst.find('(') != std::string::npos ? "store" : "load";
    } else if (mnem.rfind("movs", 0) == 0 || mnem.rfind("movz", 0) == 0) {
      kind = "load";
    } else {
      kind = "?" + mnem;
    }
    tokens[fn].push_back(kind + " " + sym);
  }
  int st = pclose(f);
  if (st != 0) everyone("objdump failed (" + std::to_string(st) + ")");
  for (size_t k = 0; k < cases.size(); ++k) {
    const Program& p = cases[k];
    for (size_t t = 0; t < p.threads.size(); ++t) {
      std::string name = prefixes[k] + "w" + std::to_string(t);
      auto want = expected_tokens(p, int(t), prefixes[k]);
      auto got = tokens[name];
      if (want != got) {
        std::string w, h;
        for (auto& x : want) w += "  " + x + "\n";
        for (auto& x : got) h += "  " + x + "\n";
        problems[k].push_back(name + ": expected the accesses\n" + w + "but the binary does\n" + h);
      }
    }
  }
  return problems;
}

// Writes a generated program; false (and a line) when it could not.
bool write_source(const char* path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) fprintf(stderr, "gen_and_count: cannot write %s\n", path);
  return bool(out);
}

int usage() {
  fprintf(stderr,
          "usage: gen_and_count gen CASE OUT.c [EQUIV] | verify CASE BINARY [OBJDUMP] | classes CASE [EQUIV] | fixed\n"
          "       | batch OUT.c CASE... | verify-batch BINARY OBJDUMP CASE...\n"
          "       batch: the cases in one program (`OUT K` runs the K-th, from 0); verify-batch checks its\n"
          "       machine code and prints `fail K` for each case whose code does not match\n"
          "       CASE: a seed or fixed:NAME; EQUIV: mazurkiewicz (default), rf-sc or rf-tso\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string mode = argv[1];
  if (mode == "fixed") {
    for (const auto& p : fixed_programs()) printf("%s\n", p.name.c_str());
    return 0;
  }
  if (mode == "batch" || mode == "verify-batch") {
    size_t first = mode == "batch" ? 3 : 4;
    if (size_t(argc) <= first) return usage();
    std::vector<Program> cases;
    std::vector<std::string> prefixes;
    for (size_t k = first; k < size_t(argc); ++k) {
      Program p;
      if (!parse_case(argv[k], p)) {
        fprintf(stderr, "gen_and_count: no case %s\n", argv[k]);
        return 2;
      }
      prefixes.push_back(batch_prefix(cases.size()));
      cases.push_back(std::move(p));
    }
    if (mode == "batch") return write_source(argv[2], batch_source_of(cases)) ? 0 : 2;
    auto problems = verify(cases, prefixes, argv[2], argv[3]);
    int failed = 0;
    for (size_t k = 0; k < cases.size(); ++k) {
      if (problems[k].empty()) continue;
      ++failed;
      printf("fail %zu\n", k);
      for (auto& s : problems[k]) fprintf(stderr, "verify %s: %s\n", cases[k].name.c_str(), s.c_str());
    }
    return failed ? 1 : 0;
  }
  if (argc < 3) return usage();
  Program p;
  if (!parse_case(argv[2], p)) {
    fprintf(stderr, "gen_and_count: no case %s\n", argv[2]);
    return 2;
  }
  if (mode == "verify") {
    if (argc != 4 && argc != 5) return usage();
    auto problems = verify({p}, {""}, argv[3], argc == 5 ? argv[4] : "objdump");
    for (auto& s : problems[0]) fprintf(stderr, "verify %s: %s\n", p.name.c_str(), s.c_str());
    return problems[0].empty() ? 0 : 1;
  }
  if (mode != "gen" && mode != "classes") return usage();
  int equiv_arg = mode == "gen" ? 4 : 3;
  if (argc > equiv_arg + 1 || argc < equiv_arg) return usage();
  std::string equiv = argc == equiv_arg + 1 ? argv[equiv_arg] : "mazurkiewicz";
  if (equiv != "mazurkiewicz" && equiv != "rf-sc" && equiv != "rf-tso") return usage();
  if (event_count(p) > kMaxEvents) {
    fprintf(stderr, "gen_and_count: case %s has too many events\n", p.name.c_str());
    return 3;
  }
  size_t nclasses = 0;
  uint64_t ninterleavings = 0;
  std::vector<std::string> examples;
  if (equiv == "mazurkiewicz") {
    Counter c(p);
    c.want_examples = mode == "classes";
    c.dfs();
    if (p.known >= 0 && (long long)c.classes.size() != p.known) {
      fprintf(stderr, "gen_and_count: brute force counts %zu classes for %s, known to have %lld\n", c.classes.size(),
              p.name.c_str(), p.known);
      return 3;
    }
    nclasses = c.classes.size();
    ninterleavings = c.interleavings;
    for (auto& e : c.examples) examples.push_back(e.second);
  } else {
    RfCounter c(p, equiv == "rf-tso");
    c.want_examples = mode == "classes";
    c.dfs();
    long long known = equiv == "rf-sc" ? p.known_rf_sc : p.known_rf_tso;
    if (known >= 0 && (long long)c.classes.size() != known) {
      fprintf(stderr, "gen_and_count: brute force counts %zu %s classes for %s, known to have %lld\n", c.classes.size(),
              equiv.c_str(), p.name.c_str(), known);
      return 3;
    }
    nclasses = c.classes.size();
    ninterleavings = c.interleavings;
    for (auto& e : c.examples) examples.push_back(e.second);
  }
  if (mode == "classes") {
    printf("%s", source_of(p).c_str());
    printf("// %zu %s classes, %llu interleavings\n", nclasses, equiv.c_str(), (unsigned long long)ninterleavings);
    for (size_t i = 0; i < examples.size(); ++i) printf("class %zu: %s\n", i + 1, examples[i].c_str());
    return 0;
  }
  if (!write_source(argv[3], source_of(p))) return 2;
  printf("classes %zu interleavings %llu events %d memops %d threads %zu\n", nclasses,
         (unsigned long long)ninterleavings, event_count(p), mem_op_count(p), p.threads.size());
  return 0;
}
