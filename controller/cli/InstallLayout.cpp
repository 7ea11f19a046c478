#include "cli/InstallLayout.h"

#include "cli/ExitStatus.h"

namespace ctrl {

std::filesystem::path ctrl_library_dir() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InternalError("cannot find ctrl's own executable");
  return self.parent_path().parent_path() / "lib" / "ctrl";
}

}  // namespace ctrl
