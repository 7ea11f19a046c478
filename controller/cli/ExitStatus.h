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

// The program's processes were taken from ctrl from outside: killed by a
// SIGKILL ctrl did not send (another process, the kernel's OOM killer) or
// traced by another tracer. Neither a bug of the program nor ctrl's own
// failure: exit status 2, one line saying what happened (README, "Exit
// statuses").
struct TargetLost : UsageError {
  using UsageError::UsageError;
};

// The line for a process of the program that died by a SIGKILL ctrl did not
// send; `what` names it ("the program's fork server", "execution 3").
inline std::string killed_from_outside(const std::string& what) {
  return what +
         " was killed from outside ctrl (SIGKILL from another process or the kernel's OOM killer): the run "
         "stops here, nothing is blamed on the program";
}

// ctrl or the machine failed. Exit status 3.
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ctrl
