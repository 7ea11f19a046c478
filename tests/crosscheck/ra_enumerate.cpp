#include "ra_enumerate.h"

#include <algorithm>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>

namespace ra_oracle {

namespace {

struct Ev {
  int thread, index;
  Kind kind;
  int var;
  bool reads() const { return kind != Kind::Store; }
  bool writes() const { return kind != Kind::Load; }
};

constexpr int kInit = -1;

// Whether the relation (a row of successor bits per node, at most 64 nodes)
// has a cycle: peel nodes without a predecessor among those left.
bool cyclic(const std::vector<uint64_t>& m) {
  size_t n = m.size();
  std::vector<uint64_t> pred(n, 0);
  for (size_t u = 0; u < n; u++)
    for (size_t v = 0; v < n; v++)
      if (m[u] >> v & 1) pred[v] |= uint64_t(1) << u;
  uint64_t left = n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
  for (bool progress = true; progress && left;) {
    progress = false;
    for (size_t u = 0; u < n; u++)
      if ((left >> u & 1) && !(pred[u] & left)) {
        left &= ~(uint64_t(1) << u);
        progress = true;
      }
  }
  return left != 0;
}

}  // namespace

namespace {

struct Layout {
  std::vector<Ev> ev;
  std::vector<size_t> reads;
};

Layout layout_of(const Program& p) {
  Layout l;
  for (int t = 0; t < int(p.threads.size()); t++)
    for (int k = 0; k < int(p.threads[t].size()); k++)
      l.ev.push_back(Ev{t, k, p.threads[t][k].kind, p.threads[t][k].var});
  for (size_t i = 0; i < l.ev.size(); i++)
    if (l.ev[i].reads()) l.reads.push_back(i);
  return l;
}

// Whether (po, rf) is RA-consistent: rf[i] is event i's source (an event
// number, or kInit), for each read i.
bool consistent_layout(const Program& p, const Layout& l, const std::vector<int>& rf) {
  const std::vector<Ev>& ev = l.ev;
  size_t n = ev.size();
  // Node n + x is x's initial write.
  size_t nodes = n + size_t(p.vars);
  auto node = [&](int w, int var) { return w == kInit ? n + size_t(var) : size_t(w); };
  // A write is read by at most one read-modify-write.
  for (size_t a = 0; a < n; a++)
    for (size_t b = a + 1; b < n; b++)
      if (ev[a].kind == Kind::FetchAdd && ev[b].kind == Kind::FetchAdd && ev[a].var == ev[b].var && rf[a] == rf[b])
        return false;
  if (nodes > 64) throw std::invalid_argument("program too large for the oracle");
  std::vector<uint64_t> base(nodes, 0);
  std::vector<uint64_t> m(nodes, 0);
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      if (ev[a].thread == ev[b].thread && ev[a].index < ev[b].index) base[a] |= uint64_t(1) << b;
  for (size_t r : l.reads) base[node(rf[r], ev[r].var)] |= uint64_t(1) << r;
  for (int x = 0; x < p.vars; x++) {
    std::vector<size_t> ws;
    for (size_t w = 0; w < n; w++)
      if (ev[w].writes() && ev[w].var == x) ws.push_back(w);
    std::sort(ws.begin(), ws.end());
    bool some = false;
    std::vector<size_t> order, pos(nodes, 0);
    do {
      // co_x against po between writes: the cycle is plain, skip the work.
      bool against_po = false;
      for (size_t a = 0; a < ws.size() && !against_po; a++)
        for (size_t b = a + 1; b < ws.size(); b++)
          if (base[ws[b]] >> ws[a] & 1) against_po = true;
      if (against_po) continue;
      // co_x: init, then ws in this order.
      order.assign(1, n + size_t(x));
      order.insert(order.end(), ws.begin(), ws.end());
      for (size_t k = 0; k < order.size(); k++) pos[order[k]] = k;
      bool atomic = true;
      for (size_t u : ws)
        if (ev[u].kind == Kind::FetchAdd && pos[node(rf[u], x)] + 1 != pos[u]) atomic = false;
      if (!atomic) continue;
      m = base;
      for (size_t a = 0; a < order.size(); a++)
        for (size_t b = a + 1; b < order.size(); b++) m[order[a]] |= uint64_t(1) << order[b];
      for (size_t r : l.reads)
        if (ev[r].var == x)
          for (size_t b = pos[node(rf[r], x)] + 1; b < order.size(); b++)
            if (order[b] != r) m[r] |= uint64_t(1) << order[b];
      if (!cyclic(m)) some = true;
    } while (!some && std::next_permutation(ws.begin(), ws.end()));
    if (!some) return false;
  }
  return true;
}

}  // namespace

bool consistent(const Program& p, const std::vector<int>& rf) { return consistent_layout(p, layout_of(p), rf); }

uint64_t count_weak_traces(const Program& p) {
  Layout l = layout_of(p);
  size_t n = l.ev.size();
  std::vector<std::vector<int>> choices;  // per read: its candidate writes
  for (size_t r : l.reads) {
    std::vector<int> c{kInit};
    for (size_t w = 0; w < n; w++)
      if (w != r && l.ev[w].writes() && l.ev[w].var == l.ev[r].var) c.push_back(int(w));
    choices.push_back(c);
  }
  std::vector<size_t> pick(l.reads.size(), 0);
  uint64_t count = 0;
  for (;;) {
    std::vector<int> rf(n, -2);
    for (size_t k = 0; k < l.reads.size(); k++) rf[l.reads[k]] = choices[k][pick[k]];
    if (consistent_layout(p, l, rf)) count++;
    size_t k = 0;
    while (k < pick.size() && ++pick[k] == choices[k].size()) pick[k++] = 0;
    if (k == pick.size()) break;
  }
  return count;
}

Program parse(const std::string& text) {
  Program p;
  p.vars = 0;
  std::stringstream threads(text);
  std::string thread;
  while (std::getline(threads, thread, '|')) {
    p.threads.emplace_back();
    std::stringstream ops(thread);
    std::string op;
    while (std::getline(ops, op, ';')) {
      std::stringstream words(op);
      std::string k, var;
      int value = 1;
      if (!(words >> k)) continue;
      words >> var >> value;
      const std::string names = "xyzw";
      if (var.size() != 1 || names.find(var[0]) == std::string::npos) throw std::invalid_argument("bad op: " + op);
      Op o;
      o.var = int(names.find(var[0]));
      o.value = value;
      o.kind = k == "r"   ? Kind::Load
               : k == "w" ? Kind::Store
               : k == "a" ? Kind::FetchAdd
                          : throw std::invalid_argument(op);
      p.vars = std::max(p.vars, o.var + 1);
      p.threads.back().push_back(o);
    }
  }
  return p;
}

std::string describe(const Program& p) {
  std::string s;
  const char* names = "xyzw";
  for (size_t t = 0; t < p.threads.size(); t++) {
    if (t) s += " | ";
    for (size_t k = 0; k < p.threads[t].size(); k++) {
      const Op& o = p.threads[t][k];
      if (k) s += "; ";
      s += o.kind == Kind::Load ? "r " : o.kind == Kind::Store ? "w " : "a ";
      s += names[o.var];
      if (o.kind != Kind::Load) s += " " + std::to_string(o.value);
    }
  }
  return s;
}

Program random_program(uint64_t seed, int max_ops, int max_events, bool rmw) {
  std::mt19937_64 rng(seed);
  auto below = [&](int n) { return int(rng() % uint64_t(n)); };
  Program p;
  p.vars = 1 + below(3);
  int threads = 2 + below(3);
  int left = max_events;
  for (int t = 0; t < threads && left > 0; t++) {
    p.threads.emplace_back();
    int ops = std::min(1 + below(max_ops), left);
    left -= ops;
    for (int k = 0; k < ops; k++) {
      Op o;
      o.var = below(p.vars);
      int c = below(rmw ? 7 : 6);
      o.kind = c < 3 ? Kind::Load : c < 6 ? Kind::Store : Kind::FetchAdd;
      o.value = 1 + below(3);
      p.threads.back().push_back(o);
    }
  }
  return p;
}

}  // namespace ra_oracle
