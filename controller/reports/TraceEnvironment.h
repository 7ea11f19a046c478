// Which of the program's environment variables a trace keeps. A trace is
// a file a user may hand on; the environment it ran with often carries
// tokens and passwords that the program under test does not need to be
// replayed. Variables whose names match a known secret-bearing pattern
// (kSecretPatterns, case-insensitive globs) or one the user gives
// (`--omit-env PATTERN`) are left out, and the trace says so (its
// program.omitted_env: name, place and size of each).
//
// Invariants:
//  - The recording runs with the whole environment (the program gets what
//    it was given); only the trace lacks the omitted variables.
//  - replay_environment() puts a filler of the same size (no '=' in it, so
//    no getenv() finds it) in each omitted variable's place: the replay's
//    initial stack is laid out as the recording's was, so stack addresses
//    in the trace's signatures still match. A program whose behaviour
//    depends on an omitted variable's value may diverge at replay.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trace.pb.h"

namespace ctrl {

// Name globs of variables that usually hold secrets.
extern const std::vector<std::string_view> kSecretPatterns;

// True when the variable called `name` is left out of traces.
bool omitted_variable(std::string_view name, const std::vector<std::string>& user_patterns);

// Sets `program`'s env to `env` minus the omitted variables, and its
// omitted_env to what was left out. Returns the names left out.
std::vector<std::string> record_environment(proto::Program& program, const std::vector<std::string>& env,
                                            const std::vector<std::string>& user_patterns);

// The environment a replay of `program` runs with: its env with a filler
// in each omitted variable's place. `program` is validated
// (TraceValidation.h): indexes ascending and within the whole.
std::vector<std::string> replay_environment(const proto::Program& program);

}  // namespace ctrl
