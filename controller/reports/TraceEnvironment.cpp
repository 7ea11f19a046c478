#include "reports/TraceEnvironment.h"

#include <fnmatch.h>

namespace ctrl {

const std::vector<std::string_view> kSecretPatterns = {
    "*TOKEN*",  "*SECRET*",      "*PASSWORD*",     "*PASSWD*",      "*PASSPHRASE*", "*_KEY",
    "*_KEY_*",  "*API_KEY*",     "*APIKEY*",       "*PRIVATE_KEY*", "AWS_*",        "*CREDENTIAL*",
    "*COOKIE*", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "*_AUTH",        "*_PAT",
};

namespace {

bool matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), FNM_CASEFOLD) == 0;
}

}  // namespace

bool omitted_variable(std::string_view name, const std::vector<std::string>& user_patterns) {
  std::string text(name);
  for (std::string_view p : kSecretPatterns)
    if (matches(std::string(p), text)) return true;
  for (const std::string& p : user_patterns)
    if (matches(p, text)) return true;
  return false;
}

std::vector<std::string> record_environment(proto::Program& program, const std::vector<std::string>& env,
                                            const std::vector<std::string>& user_patterns) {
  program.clear_env();
  program.clear_omitted_env();
  std::vector<std::string> names;
  for (size_t i = 0; i < env.size(); ++i) {
    const std::string& e = env[i];
    std::string name = e.substr(0, e.find('='));
    if (!omitted_variable(name, user_patterns)) {
      program.add_env(e);
      continue;
    }
    auto* o = program.add_omitted_env();
    o->set_name(name);
    o->set_index(uint32_t(i));
    o->set_length(uint32_t(e.size()));
    names.push_back(name);
  }
  return names;
}

std::vector<std::string> replay_environment(const proto::Program& program) {
  std::vector<std::string> env;
  env.reserve(size_t(program.env_size() + program.omitted_env_size()));
  int kept = 0;
  for (const auto& o : program.omitted_env()) {
    while (env.size() < o.index() && kept < program.env_size()) env.push_back(program.env(kept++));
    env.push_back(std::string(o.length(), '_'));
  }
  while (kept < program.env_size()) env.push_back(program.env(kept++));
  return env;
}

}  // namespace ctrl
