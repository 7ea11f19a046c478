// ctrl's exit statuses and the two error classes that map onto them.
// Anything thrown out of a command ends ctrl with one line on stderr.
#pragma once

#include <stdexcept>
#include <string>

namespace ctrl {

enum ExitStatus : int {
  kExitNoBug = 0,
  kExitBugFound = 1,
  kExitBadInput = 2,
  kExitInternal = 3,
};

// Bad usage or input: the user can fix it. Exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ctrl or the machine failed. Exit status 3.
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ctrl
