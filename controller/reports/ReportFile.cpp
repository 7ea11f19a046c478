#include "reports/ReportFile.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cli/ExitStatus.h"
#include "session/StopSignals.h"

namespace ctrl {

ReportFile::ReportFile(const std::string& option, const std::string& path) : option_(option), path_(path) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    created_ = fd_ >= 0;
    if (created_) remove_on_stop(path.c_str());
  }
  if (fd_ < 0) throw UsageError(fmt::format("{}: cannot write {}: {}", option, path, std::strerror(errno)));
}

ReportFile::~ReportFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (created_ && !written_) ::unlink(path_.c_str());
  if (created_) forget_on_stop(path_.c_str());
}

void ReportFile::write(const std::string& text) {
  if (fd_ < 0) return;
  auto fail = [&] { throw UsageError(fmt::format("{}: cannot write {}: {}", option_, path_, std::strerror(errno))); };
  if (::ftruncate(fd_, 0) != 0) fail();
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail();
    done += size_t(n);
  }
  written_ = true;
  if (created_) forget_on_stop(path_.c_str());
}

}  // namespace ctrl
