// The words of a litmus test's text, shared by the two litmus oracles
// (tests/litmus/litmus_model.cpp for x86, tests/c11litmus for C11): they
// read the same notation (registers r0, r1..., locations, values) and must
// agree on it.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace litmus_text {

inline std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// `s` cut at every `sep`, each part trimmed.
inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(trim(part));
  return out;
}

inline std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

inline bool is_register(const std::string& s) { return std::regex_match(s, std::regex("r[0-9]+")); }
inline bool is_location(const std::string& s) {
  return std::regex_match(s, std::regex("[a-z][a-z0-9_]*")) && !is_register(s);
}
inline bool is_value(const std::string& s) { return std::regex_match(s, std::regex("-?[0-9]+")); }

// An operation's words, checked as operands; a failed check throws Error
// (each oracle's parse error) naming the text.
template <typename Error>
struct Operands {
  std::string text;
  std::vector<std::string> words;
  explicit Operands(const std::string& t) : text(t), words(litmus_text::words(t)) {
    if (words.empty()) throw Error("empty operation");
  }
  void need(size_t n) const {
    if (words.size() != n) throw Error("'" + text + "': expected " + std::to_string(n - 1) + " operand(s)");
  }
  const std::string& location(size_t i) const {
    if (!is_location(words[i])) throw Error("'" + text + "': '" + words[i] + "' is not a location");
    return words[i];
  }
  const std::string& reg(size_t i) const {
    if (!is_register(words[i])) throw Error("'" + text + "': '" + words[i] + "' is not a register");
    return words[i];
  }
};

}  // namespace litmus_text
