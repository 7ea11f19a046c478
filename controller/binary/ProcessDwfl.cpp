#include "binary/ProcessDwfl.h"

#include <fmt/format.h>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

// Null means the default search path (/usr/lib/debug, build ids, ...).
char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = &g_debuginfo_path,
};

}  // namespace

Dwfl* begin_process_dwfl(pid_t pid) {
  Dwfl* dwfl = dwfl_begin(&kCallbacks);
  if (!dwfl) throw InternalError(fmt::format("libdw: {}", dwfl_errmsg(-1)));
  dwfl_report_begin(dwfl);
  dwfl_linux_proc_report(dwfl, pid);
  dwfl_report_end(dwfl, nullptr, nullptr);
  return dwfl;
}

}  // namespace ctrl
