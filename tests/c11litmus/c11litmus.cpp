// c11litmus: the C11/RC11 oracle of the C11 litmus suite (README.md).
//
//   c11litmus check FILE.litmus...   recompute every header's claims; exit 1
//                                    if one is wrong, 2 if a file cannot be
//                                    read or parsed, 3 if the models are not
//                                    nested (the enumerator itself is wrong)
//   c11litmus print FILE.litmus      the header lines the enumerator computes
//   c11litmus emit c|cpp FILE.litmus OUT   write the test's program
#include "C11Litmus.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "C11Emit.h"
#include "C11Model.h"

using namespace c11litmus;

namespace {

struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::map<Model, Result> compute(const Test& t) {
  std::map<Model, Result> r;
  for (Model m : kModels) r[m] = enumerate(t, m);
  // Every SC execution is RC11-consistent, every RC11 one C11-consistent.
  auto nested = [&](Model small, Model big) {
    const Result &a = r[small], &b = r[big];
    if (a.executions > b.executions || (a.exists && !b.exists) || (a.race && !b.race) || (a.uninit && !b.uninit) ||
        !std::includes(b.allowed.begin(), b.allowed.end(), a.allowed.begin(), a.allowed.end()))
      throw ModelError(t.name + ": " + model_name(small) + " is not included in " + model_name(big));
  };
  nested(Model::SC, Model::RC11);
  nested(Model::RC11, Model::C11);
  if (r[Model::SC].executions == 0) throw ModelError(t.name + ": no SC execution");
  return r;
}

std::string join_outcomes(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& o : s) out += (out.empty() ? "" : " | ") + o;
  return out;
}

void print_header(const Test& t, const std::map<Model, Result>& r) {
  std::printf("EXECUTIONS:");
  for (Model m : kModels) std::printf(" %s=%zu", model_name(m), r.at(m).executions);
  std::printf("\n");
  // At most about 100 characters a line: a long set continues on the next.
  for (Model m : kModels) {
    std::string line;
    auto flush = [&] {
      std::printf("ALLOWED %s: %s\n", model_name(m), line.c_str());
      line.clear();
    };
    for (const std::string& o : r.at(m).allowed) {
      if (!line.empty() && line.size() + o.size() > 90) flush();
      line += (line.empty() ? "" : " | ") + o;
    }
    flush();
  }
  if (!t.exists.empty()) {
    std::printf("EXPECT:");
    for (Model m : kModels) std::printf(" %s=%s", model_name(m), yes_no(r.at(m).exists));
    std::printf("\n");
  }
  std::printf("RACE:");
  for (Model m : kModels) std::printf(" %s=%s", model_name(m), yes_no(r.at(m).race));
  std::printf("\nUNINIT:");
  for (Model m : kModels) std::printf(" %s=%s", model_name(m), yes_no(r.at(m).uninit));
  std::printf("\n");
}

// Returns the differences between the header and the computation.
std::vector<std::string> differences(const Test& t, const std::map<Model, Result>& r) {
  std::vector<std::string> out;
  for (Model m : kModels) {
    std::string name = model_name(m);
    const Result& got = r.at(m);
    auto it = t.claims.find(m);
    if (it == t.claims.end()) {
      out.push_back("the header claims nothing for " + name);
      continue;
    }
    const Claims& c = it->second;
    if (!c.executions || *c.executions != (long)got.executions)
      out.push_back("EXECUTIONS " + name + "=" + std::to_string(got.executions));
    if (!c.allowed || *c.allowed != got.allowed) out.push_back("ALLOWED " + name + ": " + join_outcomes(got.allowed));
    if (!c.race || *c.race != got.race) out.push_back("RACE " + name + "=" + yes_no(got.race));
    if (!c.uninit || *c.uninit != got.uninit) out.push_back("UNINIT " + name + "=" + yes_no(got.uninit));
    if (!t.exists.empty() && (!c.exists || *c.exists != got.exists))
      out.push_back("EXPECT " + name + "=" + yes_no(got.exists));
    if (t.exists.empty() && c.exists) out.push_back("EXPECT without EXISTS");
  }
  return out;
}

int check(const std::vector<std::string>& files) {
  int status = 0;
  std::set<std::string> names;
  for (const std::string& file : files) {
    try {
      Test t = read_litmus(file);
      if (!names.insert(t.name).second) throw ParseError("test name " + t.name + " used twice");
      auto r = compute(t);
      std::vector<std::string> diff = differences(t, r);
      std::printf("%-22s executions sc/rc11/c11 %zu/%zu/%zu, outcomes %zu/%zu/%zu, race %s/%s/%s  %s\n", t.name.c_str(),
                  r[Model::SC].executions, r[Model::RC11].executions, r[Model::C11].executions,
                  r[Model::SC].allowed.size(), r[Model::RC11].allowed.size(), r[Model::C11].allowed.size(),
                  yes_no(r[Model::SC].race), yes_no(r[Model::RC11].race), yes_no(r[Model::C11].race),
                  diff.empty() ? "ok" : "MISMATCH");
      for (const std::string& d : diff) std::printf("  %s: the enumerator computes %s\n", file.c_str(), d.c_str());
      if (!diff.empty()) status = std::max(status, 1);
    } catch (const ParseError& e) {
      std::fprintf(stderr, "%s: %s\n", file.c_str(), e.what());
      status = std::max(status, 2);
    } catch (const ModelError& e) {
      std::fprintf(stderr, "%s: model error: %s\n", file.c_str(), e.what());
      return 3;
    }
  }
  return status;
}

int usage() {
  std::fprintf(stderr,
               "usage: c11litmus check FILE.litmus...\n"
               "       c11litmus print FILE.litmus\n"
               "       c11litmus emit c|cpp FILE.litmus OUT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage();
  std::string file;  // the file being read, for messages
  try {
    if (args[0] == "check" && args.size() >= 2) return check({args.begin() + 1, args.end()});
    if (args[0] == "print" && args.size() == 2) {
      file = args[1];
      Test t = read_litmus(file);
      print_header(t, compute(t));
      return 0;
    }
    if (args[0] == "emit" && args.size() == 4) {
      file = args[2];
      std::string program = emit_program(read_litmus(file), args[1]);
      std::ofstream out(args[3]);
      out << program;
      out.close();
      if (!out) throw ParseError("cannot write " + args[3]);
      return 0;
    }
  } catch (const ParseError& e) {
    std::fprintf(stderr, "c11litmus: %s%s\n", file.empty() ? "" : (file + ": ").c_str(), e.what());
    return 2;
  } catch (const ModelError& e) {
    std::fprintf(stderr, "c11litmus: model error: %s\n", e.what());
    return 3;
  }
  return usage();
}
