#include "parallel/ExplorationState.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/ExitStatus.h"

namespace ctrl {

namespace {

std::string file_in(const std::string& dir) { return (std::filesystem::path(dir) / "frontier.ctrlstate").string(); }

}  // namespace

ExplorationState::ExplorationState(std::string dir, std::string identity)
    : dir_(std::move(dir)), identity_(std::move(identity)), last_(std::chrono::steady_clock::now()) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) {
    fs::create_directories(dir_, ec);
    if (ec) throw UsageError(fmt::format("--state: cannot create {}: {}", dir_, ec.message()));
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  if (!fs::is_directory(dir_, ec)) throw UsageError(fmt::format("--state: {} is not a directory", dir_));
}

void ExplorationState::save(proto::SavedExploration s) {
  s.set_version(kVersion);
  s.set_identity(identity_);
  std::string bytes = s.SerializeAsString();
  std::string path = file_in(dir_), temp = path + ".new";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (size_t done = 0; ok && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    done += ok ? size_t(n) : 0;
  }
  ok = ok && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0)
    throw UsageError(fmt::format("--state: cannot write {}: {}", path, std::strerror(errno)));
  last_ = std::chrono::steady_clock::now();
}

proto::SavedExploration ExplorationState::load(const std::string& dir, const std::string& identity) {
  std::string path = file_in(dir);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--resume: no saved exploration in {} ({} is missing)", dir, path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  proto::SavedExploration s;
  if (!s.ParseFromString(bytes.str()) || s.version() != kVersion)
    throw UsageError(fmt::format("--resume: {} is not a saved exploration of this ctrl", path));
  if (s.identity() != identity)
    throw UsageError(
        fmt::format("--resume: {} was saved by another run (program, arguments or options differ: saved {}, now {})",
                    path, s.identity(), identity));
  if (!s.ended().empty())
    throw UsageError(fmt::format("--resume: nothing is left to explore: the saved run ended ({})", s.ended()));
  return s;
}

}  // namespace ctrl
