// Where ctrl finds the files it ships beside its executable: the agent
// and the MPI module live in <prefix>/lib/ctrl/, next to <prefix>/bin/ctrl,
// in the build tree as in an installation.
#pragma once

#include <filesystem>

namespace ctrl {

// <prefix>/lib/ctrl for the running ctrl; InternalError when ctrl cannot
// find its own executable.
std::filesystem::path ctrl_library_dir();

}  // namespace ctrl
