// Brute-force operational model of the litmus tests of this directory.
//
//   litmus_model FILE.c...
//
// For each litmus program, reads the test from its header comment (the
// THREAD / EXISTS / CLASSES / EXPECT lines, see README.md), checks that the program's
// thread bodies and assertion are the ones the header describes, then runs
// every interleaving of the test under three abstract machines:
//
//   sc   every store goes straight to memory;
//   tso  one FIFO store buffer per thread; a load takes the thread's newest
//        buffered store to its location if there is one (forwarding), else
//        memory; flushing the oldest entry is a step of its own; mfence and
//        locked instructions (xchg, lock xadd, lock add) wait for an empty
//        buffer and then read and write memory directly;
//   pso  as tso, but any entry may be flushed as long as no older entry of
//        the same thread has the same location (FIFO per location) or was
//        buffered before an sfence the entry was buffered after.
//
// and computes whether the EXISTS outcome (register values and final memory,
// all buffers drained) is reachable under each, and whether the test is
// TSO-safe (robust): every TSO execution has the trace (reads-from and
// per-location coherence order) of some SC execution. Robustness is decided
// twice, independently: (1) po | rf | co | fr of every TSO execution is
// acyclic, (2) the set of TSO traces is included in the set of SC traces; the
// two must agree, as must the inclusions sc <= tso <= pso of outcomes and
// traces, or the model itself is wrong and says so (exit 3). It also counts
// the distinct traces under each machine: the number of equivalence classes
// a DPOR exploration of the program must run (CLASSES).
//
// Prints one line per test and exits 1 if some computed verdict or count
// differs from the header's EXPECT or CLASSES line, 2 if a file cannot be
// read or parsed.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "LitmusText.h"

namespace {

using namespace litmus_text;

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Kind { Store, Load, MFence, SFence, LFence, Xchg, Xadd, LockAdd };

struct Op {
  Kind kind;
  std::string reg;  // Load, Xchg, Xadd
  std::string loc;  // every memory access
  long val = 0;     // Store, Xchg, Xadd, LockAdd

  bool operator==(const Op&) const = default;
  bool accesses_memory() const {
    return kind != Kind::MFence && kind != Kind::SFence && kind != Kind::LFence;
  }
  bool reads() const { return kind == Kind::Load || locked(); }
  bool writes() const { return kind == Kind::Store || locked(); }
  bool locked() const { return kind == Kind::Xchg || kind == Kind::Xadd || kind == Kind::LockAdd; }
};

std::string to_string(const Op& op) {
  switch (op.kind) {
    case Kind::Store:
      return "store " + op.loc + " " + std::to_string(op.val);
    case Kind::Load:
      return "load " + op.reg + " " + op.loc;
    case Kind::MFence:
      return "mfence";
    case Kind::SFence:
      return "sfence";
    case Kind::LFence:
      return "lfence";
    case Kind::Xchg:
      return "xchg " + op.reg + " " + op.loc + " " + std::to_string(op.val);
    case Kind::Xadd:
      return "xadd " + op.reg + " " + op.loc + " " + std::to_string(op.val);
    case Kind::LockAdd:
      return "lock-add " + op.loc + " " + std::to_string(op.val);
  }
  return "?";
}

enum Verdict { kSc, kTso, kPso, kSafe, kVerdicts };
const char* const kVerdictNames[kVerdicts] = {"sc", "tso", "pso", "tso-safe"};

struct Test {
  std::string file;
  std::string name;
  std::vector<std::vector<Op>> threads;
  std::vector<std::pair<std::string, long>> exists;  // register or location = value
  int expect[kVerdicts] = {-1, -1, -1, -1};          // 1 yes, 0 no
  long classes[3] = {-1, -1, -1};                    // sc, tso, pso
};


long parse_value(const std::string& s) {
  if (!litmus_text::is_value(s)) throw ParseError("not a value: '" + s + "'");
  return std::stol(s);
}

Op parse_op(const std::string& text) {
  const Operands<ParseError> o(text);
  const std::vector<std::string>& w = o.words;
  auto need = [&](size_t n) { o.need(n); };
  auto loc = [&](size_t i) { return o.location(i); };
  auto reg = [&](size_t i) { return o.reg(i); };
  const std::string& k = w[0];
  if (k == "store") {
    need(3);
    return {Kind::Store, "", loc(1), parse_value(w[2])};
  }
  if (k == "load") {
    need(3);
    return {Kind::Load, reg(1), loc(2), 0};
  }
  if (k == "mfence" || k == "sfence" || k == "lfence") {
    need(1);
    return {k == "mfence" ? Kind::MFence : k == "sfence" ? Kind::SFence : Kind::LFence, "", "", 0};
  }
  if (k == "xchg" || k == "xadd") {
    need(4);
    return {k == "xchg" ? Kind::Xchg : Kind::Xadd, reg(1), loc(2), parse_value(w[3])};
  }
  if (k == "lock-add") {
    need(3);
    return {Kind::LockAdd, "", loc(1), parse_value(w[2])};
  }
  throw ParseError("unknown operation '" + k + "'");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The header: the first comment of the file, lines with their leading
// " * " removed.
Test parse_header(const std::string& path, const std::string& source) {
  Test t;
  t.file = path;
  size_t end = source.find("*/");
  if (source.rfind("/*", 0) != 0 || end == std::string::npos)
    throw ParseError("the file does not start with a header comment");
  std::istringstream in(source.substr(2, end - 2));
  std::map<int, std::vector<Op>> threads;
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.rfind("*", 0) == 0) line = trim(line.substr(1));
    std::smatch m;
    if (std::regex_match(line, m, std::regex("LITMUS +(\\S+)"))) {
      t.name = m[1];
    } else if (std::regex_match(line, m, std::regex("THREAD +([0-9]+): *(.*)"))) {
      int n = std::stoi(m[1]);
      if (threads.count(n)) throw ParseError("thread " + std::to_string(n) + " described twice");
      std::vector<Op> ops;
      for (const std::string& op : split(m[2], ';')) ops.push_back(parse_op(op));
      threads[n] = ops;
    } else if (std::regex_match(line, m, std::regex("EXISTS: *(.*)"))) {
      for (const std::string& w : words(m[1])) {
        size_t eq = w.find('=');
        if (eq == std::string::npos) throw ParseError("EXISTS: '" + w + "' is not name=value");
        std::string name = w.substr(0, eq);
        if (!is_register(name) && !is_location(name))
          throw ParseError("EXISTS: '" + name + "' is neither a register nor a location");
        t.exists.emplace_back(name, parse_value(w.substr(eq + 1)));
      }
    } else if (std::regex_match(line, m, std::regex("CLASSES: *sc=([0-9]+) +tso=([0-9]+) +pso=([0-9]+)"))) {
      for (int i = 0; i < 3; i++) t.classes[i] = std::stol(m[i + 1]);
    } else if (std::regex_match(line, m, std::regex("EXPECT: *(.*)"))) {
      for (const std::string& w : words(m[1])) {
        size_t eq = w.find('=');
        std::string key = w.substr(0, eq), value = eq == std::string::npos ? "" : w.substr(eq + 1);
        int v = value == "yes" ? 1 : value == "no" ? 0 : -1;
        auto at = std::find(std::begin(kVerdictNames), std::end(kVerdictNames), key);
        if (at == std::end(kVerdictNames) || v < 0)
          throw ParseError("EXPECT: '" + w + "' is not sc|tso|pso|tso-safe=yes|no");
        t.expect[at - std::begin(kVerdictNames)] = v;
      }
    }
  }
  if (t.name.empty()) throw ParseError("no LITMUS line");
  for (int v = 0; v < kVerdicts; v++)
    if (t.expect[v] < 0) throw ParseError(std::string("EXPECT does not give ") + kVerdictNames[v]);
  if (t.exists.empty()) throw ParseError("no EXISTS line");
  if (t.classes[0] < 0) throw ParseError("no CLASSES: sc=N tso=N pso=N line");
  for (int n = 0; n < (int)threads.size(); n++) {
    if (!threads.count(n))
      throw ParseError("threads are not numbered 0.." + std::to_string(threads.size() - 1));
    t.threads.push_back(threads[n]);
  }
  if (t.threads.size() < 2) throw ParseError("a litmus test needs at least two threads");
  // A register belongs to one thread and is written once, so that EXISTS
  // names one value.
  std::set<std::string> regs;
  for (const auto& ops : t.threads)
    for (const Op& op : ops)
      if (!op.reg.empty() && !regs.insert(op.reg).second)
        throw ParseError("register " + op.reg + " is written twice");
  for (const auto& [name, value] : t.exists)
    if (is_register(name) && !regs.count(name))
      throw ParseError("EXISTS names " + name + ", which no operation writes");
  return t;
}

// ---------------------------------------------------------------------------
// The program must be the one the header describes: thread function tN runs
// exactly the macro calls of THREAD N, copies each EXISTS register into
// res_rK, main runs the table {t0, t1, ...} and asserts the negation of
// EXISTS. A mismatch is a parse error (the test is wrong, not ctrl).

// The text between the brace that opens at or after `from` and its match.
std::string braced_body(const std::string& src, size_t from, const std::string& what) {
  size_t open = src.find('{', from);
  if (open == std::string::npos) throw ParseError(what + ": no body");
  int depth = 0;
  for (size_t i = open; i < src.size(); i++) {
    if (src[i] == '{')
      depth++;
    else if (src[i] == '}' && --depth == 0)
      return src.substr(open + 1, i - open - 1);
  }
  throw ParseError(what + ": unbalanced braces");
}

std::string function_body(const std::string& src, const std::string& name) {
  std::smatch m;
  std::regex def("static void \\*" + name + "\\(void \\*arg\\)\\s*\\{");
  if (!std::regex_search(src, m, def)) throw ParseError("no function 'static void *" + name + "(void *arg)'");
  return braced_body(src, m.position(0), name);
}

void check_source(const Test& t, const std::string& src) {
  std::regex call("\\b(STORE|LOAD|MFENCE|SFENCE|LFENCE|XCHG|XADD|LOCK_ADD)\\s*\\(([^()]*)\\)");
  for (size_t n = 0; n < t.threads.size(); n++) {
    std::string fn = "t" + std::to_string(n);
    std::string body = function_body(src, fn);
    std::vector<Op> ops;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), call); it != std::sregex_iterator(); ++it) {
      std::string macro = (*it)[1];
      std::vector<std::string> a = split((*it)[2], ',');
      if (a.size() == 1 && a[0].empty()) a.clear();
      // The notation's keyword is the macro's name in lower case.
      std::string text = macro == "LOCK_ADD" ? "lock-add" : macro;
      std::transform(text.begin(), text.end(), text.begin(), [](char c) { return char(std::tolower(c)); });
      for (const std::string& arg : a) text += " " + arg;
      ops.push_back(parse_op(text));
    }
    if (ops != t.threads[n]) {
      std::string got;
      for (const Op& op : ops) got += (got.empty() ? "" : "; ") + to_string(op);
      throw ParseError(fn + " runs '" + got + "', not THREAD " + std::to_string(n));
    }
    for (const auto& [name, value] : t.exists) {
      bool mine = std::any_of(ops.begin(), ops.end(), [&](const Op& op) { return op.reg == name; });
      if (mine && !std::regex_search(body, std::regex("\\bres_" + name + " = " + name + ";")))
        throw ParseError(fn + " does not copy " + name + " into res_" + name);
    }
  }
  std::string main_body = braced_body(src, src.find("int main(void)"), "main");
  std::string table = "\\{\\s*t0";
  for (size_t n = 1; n < t.threads.size(); n++) table += "\\s*,\\s*t" + std::to_string(n);
  table += "\\s*\\}";
  if (!std::regex_search(main_body, std::regex(table)) || main_body.find("LITMUS_RUN(") == std::string::npos)
    throw ParseError("main does not LITMUS_RUN the table {t0, ..., t" + std::to_string(t.threads.size() - 1) +
                     "}");
  size_t a = main_body.find("assert(!(");
  size_t b = main_body.find("));", a);
  if (a == std::string::npos || b == std::string::npos) throw ParseError("main has no assert(!(...));");
  std::set<std::pair<std::string, long>> asserted, wanted(t.exists.begin(), t.exists.end());
  std::string cond = main_body.substr(a + 9, b - a - 9);
  for (size_t at = 0;;) {
    size_t next = cond.find("&&", at);
    std::string term = trim(cond.substr(at, next == std::string::npos ? std::string::npos : next - at));
    std::smatch m;
    if (!std::regex_match(term, m, std::regex("(res_)?([a-z][a-z0-9_]*) == (-?[0-9]+)")))
      throw ParseError("main's assertion: '" + term + "' is not 'name == value'");
    if (m[1].matched != is_register(m[2]))
      throw ParseError("main's assertion: '" + term + "': registers are read as res_rK, locations directly");
    asserted.emplace(m[2], std::stol(m[3]));
    if (next == std::string::npos) break;
    at = next + 2;
  }
  if (asserted != wanted) throw ParseError("main's assertion is not the negation of EXISTS");
}

// ---------------------------------------------------------------------------
// The machines.

enum class Model { SC, TSO, PSO };

struct Event {  // one memory access of the program (fences are not events)
  int thread;
  int loc;
  bool reads, writes;
};

struct Entry {  // a buffered store
  int loc;
  long val;
  int event;
  int epoch;  // sfences its thread had run when it was buffered
};

struct State {
  std::vector<int> pc;
  std::vector<int> epoch;
  std::vector<std::vector<Entry>> buffer;  // per thread, oldest first
  std::vector<long> regs;
  std::vector<long> mem;
  std::vector<int> rf;               // per event: the write it read (-1: initial value)
  std::vector<std::vector<int>> co;  // per location: writes in the order they reached memory

  std::string key() const {
    std::ostringstream o;
    auto put = [&](const auto& v) {
      for (auto x : v) o << x << ',';
      o << '|';
    };
    put(pc);
    put(epoch);
    for (const auto& b : buffer) {
      for (const Entry& e : b) o << e.loc << ':' << e.val << ':' << e.event << ':' << e.epoch << ',';
      o << '|';
    }
    put(regs);
    put(mem);
    put(rf);
    for (const auto& c : co) put(c);
    return o.str();
  }
};

struct Trace {  // the Shasha-Snir trace of a complete execution
  std::vector<int> rf;
  std::vector<std::vector<int>> co;
  auto operator<=>(const Trace&) const = default;
};

struct Result {
  bool reachable = false;
  std::set<Trace> traces;
  size_t states = 0;
};

class Machine {
 public:
  explicit Machine(const Test& t) : test_(t) {
    for (const auto& ops : t.threads)
      for (const Op& op : ops) {
        if (!op.loc.empty()) loc_index(op.loc);
        if (!op.reg.empty()) reg_index(op.reg);
      }
    for (const auto& [name, value] : t.exists)
      if (!is_register(name)) loc_index(name);
    for (size_t n = 0; n < t.threads.size(); n++) {
      event_of_.emplace_back();
      for (const Op& op : t.threads[n]) {
        event_of_.back().push_back(op.accesses_memory() ? (int)events_.size() : -1);
        if (op.accesses_memory()) events_.push_back({(int)n, loc_index(op.loc), op.reads(), op.writes()});
      }
    }
  }

  Result run(Model model) {
    model_ = model;
    result_ = Result();
    seen_.clear();
    State s;
    size_t n = test_.threads.size();
    s.pc.assign(n, 0);
    s.epoch.assign(n, 0);
    s.buffer.assign(n, {});
    s.regs.assign(regs_.size(), 0);
    s.mem.assign(locs_.size(), 0);
    s.rf.assign(events_.size(), -2);
    s.co.assign(locs_.size(), {});
    explore(s);
    result_.states = seen_.size();
    return result_;
  }

  // po | rf | co | fr has a cycle: the trace is not that of an SC execution.
  bool cyclic(const Trace& tr) const {
    size_t n = events_.size();
    std::vector<std::vector<int>> succ(n);
    for (size_t e = 0; e + 1 < n; e++)
      if (events_[e].thread == events_[e + 1].thread)
        succ[e].push_back((int)e + 1);  // events are numbered in program order
    for (const auto& order : tr.co)
      for (size_t i = 0; i + 1 < order.size(); i++) succ[order[i]].push_back(order[i + 1]);
    for (size_t r = 0; r < n; r++) {
      if (!events_[r].reads) continue;
      int w = tr.rf[r];
      if (w >= 0 && w != (int)r) succ[w].push_back((int)r);
      const auto& order = tr.co[events_[r].loc];
      size_t from = w < 0 ? 0 : std::find(order.begin(), order.end(), w) - order.begin() + 1;
      for (size_t i = from; i < order.size(); i++)
        if (order[i] != (int)r) succ[r].push_back(order[i]);
    }
    std::vector<int> color(n, 0);  // 0 new, 1 on the stack, 2 done
    std::function<bool(int)> dfs = [&](int e) {
      color[e] = 1;
      for (int f : succ[e])
        if (color[f] == 1 || (color[f] == 0 && dfs(f))) return true;
      color[e] = 2;
      return false;
    };
    for (size_t e = 0; e < n; e++)
      if (color[e] == 0 && dfs((int)e)) return true;
    return false;
  }

 private:
  int loc_index(const std::string& name) {
    auto [it, added] = locs_.emplace(name, (int)locs_.size());
    return it->second;
  }
  int reg_index(const std::string& name) {
    auto [it, added] = regs_.emplace(name, (int)regs_.size());
    return it->second;
  }

  void write_memory(State& s, int loc, long val, int event) const {
    s.mem[loc] = val;
    s.co[loc].push_back(event);
  }
  int last_write(const State& s, int loc) const { return s.co[loc].empty() ? -1 : s.co[loc].back(); }

  // Entry i of thread t's buffer may reach memory now.
  bool flushable(const State& s, size_t t, size_t i) const {
    const auto& b = s.buffer[t];
    if (model_ == Model::TSO) return i == 0;
    for (size_t j = 0; j < i; j++)
      if (b[j].loc == b[i].loc || b[j].epoch < b[i].epoch) return false;
    return true;
  }

  void explore(const State& s) {
    if (!seen_.insert(s.key()).second) return;
    bool done = true;
    for (size_t t = 0; t < s.pc.size(); t++) {
      if (!s.buffer[t].empty()) done = false;
      for (size_t i = 0; i < s.buffer[t].size(); i++) {
        if (!flushable(s, t, i)) continue;
        State n = s;
        Entry e = n.buffer[t][i];
        n.buffer[t].erase(n.buffer[t].begin() + i);
        write_memory(n, e.loc, e.val, e.event);
        explore(n);
      }
      if (s.pc[t] == (int)test_.threads[t].size()) continue;
      done = false;
      const Op& op = test_.threads[t][s.pc[t]];
      int ev = event_of_[t][s.pc[t]];
      State n = s;
      n.pc[t]++;
      switch (op.kind) {
        case Kind::Store:
          if (model_ == Model::SC)
            write_memory(n, events_[ev].loc, op.val, ev);
          else
            n.buffer[t].push_back({events_[ev].loc, op.val, ev, n.epoch[t]});
          break;
        case Kind::Load: {
          int loc = events_[ev].loc;
          const auto& b = n.buffer[t];
          auto own = std::find_if(b.rbegin(), b.rend(), [&](const Entry& e) { return e.loc == loc; });
          if (own != b.rend()) {
            n.regs[regs_.at(op.reg)] = own->val;
            n.rf[ev] = own->event;
          } else {
            n.regs[regs_.at(op.reg)] = n.mem[loc];
            n.rf[ev] = last_write(n, loc);
          }
          break;
        }
        case Kind::MFence:
          if (!s.buffer[t].empty()) continue;
          break;
        case Kind::SFence:
          n.epoch[t]++;
          break;
        case Kind::LFence:
          break;
        case Kind::Xchg:
        case Kind::Xadd:
        case Kind::LockAdd: {
          if (!s.buffer[t].empty()) continue;
          int loc = events_[ev].loc;
          long old = n.mem[loc];
          n.rf[ev] = last_write(n, loc);
          write_memory(n, loc, op.kind == Kind::Xchg ? op.val : old + op.val, ev);
          if (!op.reg.empty()) n.regs[regs_.at(op.reg)] = old;
          break;
        }
      }
      explore(n);
    }
    if (!done) return;
    bool hit = true;
    for (const auto& [name, value] : test_.exists)
      hit = hit && (is_register(name) ? s.regs[regs_.at(name)] : s.mem[locs_.at(name)]) == value;
    result_.reachable = result_.reachable || hit;
    result_.traces.insert({s.rf, s.co});
  }

  const Test& test_;
  std::map<std::string, int> locs_, regs_;
  std::vector<Event> events_;
  std::vector<std::vector<int>> event_of_;  // per thread and op: its event, -1 for a fence
  Model model_ = Model::SC;
  Result result_;
  std::set<std::string> seen_;
};

bool includes(const std::set<Trace>& big, const std::set<Trace>& small) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

// Returns whether the computed verdicts match the header.
bool check(const Test& t) {
  Machine m(t);
  Result sc = m.run(Model::SC), tso = m.run(Model::TSO), pso = m.run(Model::PSO);
  size_t non_sc = 0;
  for (const Trace& tr : tso.traces) non_sc += m.cyclic(tr);
  for (const Trace& tr : sc.traces)
    if (m.cyclic(tr)) throw ModelError(t.name + ": an SC execution has a cyclic trace");
  bool robust = non_sc == 0;
  if (robust != includes(sc.traces, tso.traces))
    throw ModelError(t.name + ": acyclicity and trace inclusion disagree on TSO-safety");
  if (!includes(tso.traces, sc.traces) || !includes(pso.traces, tso.traces) ||
      (sc.reachable && !tso.reachable) || (tso.reachable && !pso.reachable))
    throw ModelError(t.name + ": the models are not nested (sc <= tso <= pso)");
  int got[kVerdicts] = {sc.reachable, tso.reachable, pso.reachable, robust};
  long classes[3] = {(long)sc.traces.size(), (long)tso.traces.size(), (long)pso.traces.size()};
  bool ok = std::equal(std::begin(got), std::end(got), std::begin(t.expect)) &&
            std::equal(std::begin(classes), std::end(classes), std::begin(t.classes));
  std::printf("%-18s", t.name.c_str());
  for (int v = 0; v < kVerdicts; v++) std::printf(" %s=%-3s", kVerdictNames[v], got[v] ? "yes" : "no");
  std::printf("  classes sc/tso/pso %zu/%zu/%zu (%zu non-SC), states %zu/%zu/%zu  %s\n", sc.traces.size(),
              tso.traces.size(), pso.traces.size(), non_sc, sc.states, tso.states, pso.states,
              ok ? "ok" : "MISMATCH");
  if (!ok) {
    std::printf("  %s: the header expects", t.file.c_str());
    for (int v = 0; v < kVerdicts; v++) std::printf(" %s=%s", kVerdictNames[v], t.expect[v] ? "yes" : "no");
    std::printf(", classes sc=%ld tso=%ld pso=%ld\n", t.classes[0], t.classes[1], t.classes[2]);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: litmus_model FILE.c...\n");
    return 2;
  }
  int status = 0;
  std::set<std::string> names;
  for (int i = 1; i < argc; i++) {
    try {
      std::string src = read_file(argv[i]);
      Test t = parse_header(argv[i], src);
      if (!names.insert(t.name).second) throw ParseError("test name " + t.name + " used twice");
      check_source(t, src);
      if (!check(t)) status = std::max(status, 1);
    } catch (const ParseError& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      status = std::max(status, 2);
    } catch (const ModelError& e) {
      std::fprintf(stderr, "%s: model error: %s\n", argv[i], e.what());
      return 3;
    }
  }
  return status;
}
