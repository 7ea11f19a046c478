// A libdwfl session over a live process's modules, as both the symbolizer and
// the variable printer need it: the default debuginfo search path (build ids,
// /usr/lib/debug) and every module the process has mapped, reported while the
// process exists.
#pragma once

#include <elfutils/libdwfl.h>
#include <sys/types.h>

namespace ctrl {

// A Dwfl whose modules are `pid`'s mappings; the caller ends it with
// dwfl_end. If the process is gone or not readable the module list is empty
// (addresses are then described numerically), never an error; only libdw
// failing to start is (InternalError). Whatever libdw opens for it (the
// modules' files, debuginfod's socket pair) is close-on-exec: no program
// ctrl launches later inherits it.
Dwfl* begin_process_dwfl(pid_t pid);

}  // namespace ctrl
