#include "C11Litmus.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "LitmusText.h"

namespace c11litmus {

namespace {

using namespace litmus_text;


long parse_value(const std::string& s) {
  if (!litmus_text::is_value(s)) throw ParseError("not a value: '" + s + "'");
  return std::stol(s);
}

Order parse_order(const std::string& s) {
  static const std::map<std::string, Order> names = {{"na", Order::NA},          {"rlx", Order::Rlx},
                                                     {"acq", Order::Acq},        {"rel", Order::Rel},
                                                     {"acq_rel", Order::AcqRel}, {"sc", Order::SC}};
  auto it = names.find(s);
  if (it == names.end()) throw ParseError("not a memory order: '" + s + "' (na rlx acq rel acq_rel sc)");
  return it->second;
}

Op parse_op(const std::string& text) {
  const Operands<ParseError> o(text);
  const std::vector<std::string>& w = o.words;
  auto need = [&](size_t n) { o.need(n); };
  auto loc = [&](size_t i) { return o.location(i); };
  auto reg = [&](size_t i) { return o.reg(i); };
  const std::string& k = w[0];
  Op op;
  if (k == "load") {
    need(4);
    op = {OpKind::Load, parse_order(w[3]), Order::Rlx, reg(1), loc(2)};
    if (op.order == Order::Rel || op.order == Order::AcqRel) throw ParseError("'" + text + "': a load cannot release");
  } else if (k == "store") {
    need(4);
    op = {OpKind::Store, parse_order(w[3]), Order::Rlx, "", loc(1), parse_value(w[2])};
    if (op.order == Order::Acq || op.order == Order::AcqRel) throw ParseError("'" + text + "': a store cannot acquire");
  } else if (k == "cas") {
    need(7);
    op = {OpKind::Cas, parse_order(w[5]), parse_order(w[6]), reg(1), loc(2), parse_value(w[4]), parse_value(w[3])};
    if (op.fail_order == Order::Rel || op.fail_order == Order::AcqRel || op.fail_order > op.order ||
        (op.order == Order::Rel && op.fail_order != Order::Rlx))
      throw ParseError("'" + text + "': bad failure order");
  } else if (k == "xchg" || k == "fadd") {
    need(5);
    op = {k == "xchg" ? OpKind::Xchg : OpKind::FetchAdd,
          parse_order(w[4]),
          Order::Rlx,
          reg(1),
          loc(2),
          parse_value(w[3])};
  } else if (k == "fence") {
    need(2);
    op = {OpKind::Fence, parse_order(w[1]), Order::Rlx, "", ""};
  } else {
    throw ParseError("unknown operation '" + k + "' (load store cas xchg fadd fence)");
  }
  if (op.order == Order::NA && op.kind != OpKind::Load && op.kind != OpKind::Store)
    throw ParseError("'" + text + "': only loads and stores can be non-atomic");
  if (op.kind == OpKind::Fence && op.order == Order::Rlx)
    throw ParseError("'" + text + "': a relaxed fence does nothing");
  return op;
}

// "sc=3 rc11=4 c11=4" into a map of model name to word.
std::map<Model, std::string> per_model(const std::string& line, const std::string& what) {
  std::map<Model, std::string> out;
  for (const std::string& w : words(line)) {
    size_t eq = w.find('=');
    std::string key = w.substr(0, eq);
    auto m = std::find_if(std::begin(kModels), std::end(kModels), [&](Model m) { return key == model_name(m); });
    if (eq == std::string::npos || m == std::end(kModels))
      throw ParseError(what + ": '" + w + "' is not sc|rc11|c11=VALUE");
    out[*m] = w.substr(eq + 1);
  }
  return out;
}

bool parse_yes_no(const std::string& s, const std::string& what) {
  if (s == "yes") return true;
  if (s == "no") return false;
  throw ParseError(what + ": '" + s + "' is neither yes nor no");
}

}  // namespace

const char* model_name(Model m) {
  switch (m) {
    case Model::SC:
      return "sc";
    case Model::RC11:
      return "rc11";
    case Model::C11:
      return "c11";
  }
  return "?";
}

const char* order_name(Order o) {
  switch (o) {
    case Order::NA:
      return "na";
    case Order::Rlx:
      return "rlx";
    case Order::Acq:
      return "acq";
    case Order::Rel:
      return "rel";
    case Order::AcqRel:
      return "acq_rel";
    case Order::SC:
      return "sc";
  }
  return "?";
}

std::string to_string(const Op& op) {
  auto v = [](long x) { return std::to_string(x); };
  switch (op.kind) {
    case OpKind::Load:
      return "load " + op.reg + " " + op.loc + " " + order_name(op.order);
    case OpKind::Store:
      return "store " + op.loc + " " + v(op.value) + " " + order_name(op.order);
    case OpKind::Cas:
      return "cas " + op.reg + " " + op.loc + " " + v(op.expected) + " " + v(op.value) + " " + order_name(op.order) +
             " " + order_name(op.fail_order);
    case OpKind::Xchg:
      return "xchg " + op.reg + " " + op.loc + " " + v(op.value) + " " + order_name(op.order);
    case OpKind::FetchAdd:
      return "fadd " + op.reg + " " + op.loc + " " + v(op.value) + " " + order_name(op.order);
    case OpKind::Fence:
      return std::string("fence ") + order_name(op.order);
  }
  return "?";
}

std::string format_outcome(const std::vector<std::string>& names, const std::vector<long>& values) {
  std::string out;
  for (size_t i = 0; i < names.size(); i++) {
    if (i) out += ' ';
    out += names[i] + "=" + (values[i] == kUndefined ? "?" : std::to_string(values[i]));
  }
  return out;
}

std::vector<std::string> Test::registers() const {
  std::vector<std::string> out;
  for (const auto& ops : threads)
    for (const Op& op : ops)
      if (!op.reg.empty()) out.push_back(op.reg);
  return out;
}

std::vector<std::string> Test::outcome_names() const {
  std::vector<std::string> out = registers();
  std::map<std::string, int> writers;
  for (const auto& ops : threads)
    for (const Op& op : ops)
      if (op.kind != OpKind::Load && op.kind != OpKind::Fence) writers[op.loc]++;
  for (const auto& [loc, n] : writers)
    if (n >= 2) out.push_back(loc);
  return out;
}

Test parse_litmus(const std::string& path, const std::string& text) {
  Test t;
  t.file = path;
  std::map<int, std::vector<Op>> threads;
  std::istringstream in(text);
  int lineno = 0;
  for (std::string raw; std::getline(in, raw);) {
    lineno++;
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    try {
      if (std::regex_match(line, m, std::regex("NAME: *(\\S+)"))) {
        t.name = m[1];
      } else if (std::regex_match(line, m, std::regex("THREAD +([0-9]+): *(.*)"))) {
        int n = std::stoi(m[1]);
        if (threads.count(n)) throw ParseError("thread " + std::to_string(n) + " described twice");
        for (const std::string& op : split(m[2], ';')) threads[n].push_back(parse_op(op));
      } else if (std::regex_match(line, m, std::regex("INIT: *(.*)"))) {
        for (const std::string& w : words(m[1])) {
          size_t eq = w.find('=');
          if (eq == std::string::npos || !is_location(w.substr(0, eq)))
            throw ParseError("INIT: '" + w + "' is not location=value or location=?");
          std::string v = w.substr(eq + 1);
          t.locations[w.substr(0, eq)] = v == "?" ? std::nullopt : std::optional<long>(parse_value(v));
        }
      } else if (std::regex_match(line, m, std::regex("EXISTS: *(.*)"))) {
        for (const std::string& w : words(m[1])) {
          size_t eq = w.find('=');
          if (eq == std::string::npos) throw ParseError("EXISTS: '" + w + "' is not name=value");
          t.exists.emplace_back(w.substr(0, eq), parse_value(w.substr(eq + 1)));
        }
      } else if (std::regex_match(line, m, std::regex("LANG: *(.*)"))) {
        for (const std::string& w : words(m[1])) {
          if (w != "c" && w != "cpp") throw ParseError("LANG: '" + w + "' is neither c nor cpp");
          t.languages.insert(w);
        }
      } else if (std::regex_match(line, m, std::regex("EXECUTIONS: *(.*)"))) {
        for (const auto& [model, v] : per_model(m[1], "EXECUTIONS")) t.claims[model].executions = parse_value(v);
      } else if (std::regex_match(line, m, std::regex("EXPECT: *(.*)"))) {
        for (const auto& [model, v] : per_model(m[1], "EXPECT")) t.claims[model].exists = parse_yes_no(v, "EXPECT");
      } else if (std::regex_match(line, m, std::regex("RACE: *(.*)"))) {
        for (const auto& [model, v] : per_model(m[1], "RACE")) t.claims[model].race = parse_yes_no(v, "RACE");
      } else if (std::regex_match(line, m, std::regex("UNINIT: *(.*)"))) {
        for (const auto& [model, v] : per_model(m[1], "UNINIT")) t.claims[model].uninit = parse_yes_no(v, "UNINIT");
      } else if (std::regex_match(line, m, std::regex("ALLOWED +(\\S+): *(.*)"))) {
        auto models = per_model(std::string(m[1]) + "=", "ALLOWED");
        // A long set continues on further ALLOWED lines of the same model.
        Claims& c = t.claims[models.begin()->first];
        if (!c.allowed) c.allowed.emplace();
        for (const std::string& o : split(m[2], '|'))
          c.allowed->insert(trim(std::regex_replace(o, std::regex(" +"), " ")));
      } else {
        throw ParseError("cannot read '" + line + "'");
      }
    } catch (const ParseError& e) {
      throw ParseError("line " + std::to_string(lineno) + ": " + e.what());
    }
  }
  if (t.name.empty()) throw ParseError("no NAME line");
  if (threads.empty()) throw ParseError("no THREAD line");
  for (int n = 0; n < (int)threads.size(); n++) {
    if (!threads.count(n)) throw ParseError("threads are not numbered 0.." + std::to_string(threads.size() - 1));
    t.threads.push_back(threads[n]);
  }
  if (t.languages.empty()) t.languages.insert("c");
  std::set<std::string> regs;
  for (const auto& ops : t.threads)
    for (const Op& op : ops) {
      if (!op.reg.empty() && !regs.insert(op.reg).second) throw ParseError("register " + op.reg + " is written twice");
      if (!op.loc.empty() && !t.locations.count(op.loc)) t.locations[op.loc] = 0;
    }
  // A location accessed both atomically and non-atomically cannot be one C
  // object declared either way (the generated program needs one type).
  for (const auto& [loc, init] : t.locations) {
    bool na = false, atomic = false;
    for (const auto& ops : t.threads)
      for (const Op& op : ops)
        if (op.loc == loc) (op.order == Order::NA ? na : atomic) = true;
    if (na && atomic) throw ParseError("location " + loc + " is accessed both atomically and non-atomically");
    if (!na && !atomic) throw ParseError("INIT names " + loc + ", which no operation accesses");
  }
  for (const auto& [name, value] : t.exists)
    if (!(is_register(name) ? regs.count(name) : t.locations.count(name)))
      throw ParseError("EXISTS names " + name + ", which no operation writes or accesses");
  return t;
}

Test read_litmus(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_litmus(path, ss.str());
}

}  // namespace c11litmus
