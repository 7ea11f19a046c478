#include "reports/TraceFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "cli/ExitStatus.h"
#include "reports/TraceValidation.h"

namespace ctrl {
namespace {

constexpr std::string_view kMagic = "CTRLTRC1";
constexpr size_t kHeaderSize = 24;

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void put_le64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t get_le64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(in[i]);
  return v;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

namespace {

// Writes `trace` to a new temporary file beside `path` (mode 0600, as a
// trace holds the program's arguments and environment) and syncs it.
// Returns the temporary file's name; throws InternalError on failure.
std::string write_temporary(const std::string& path, const proto::Trace& trace) {
  std::string payload;
  if (!trace.SerializeToString(&payload))
    throw InternalError(fmt::format("cannot serialise the trace for '{}'", path));
  std::string bytes(kMagic);
  put_le64(bytes, payload.size());
  put_le64(bytes, fnv1a64(payload));
  bytes += payload;

  // O_EXCL with a name unique to this process and call keeps concurrent
  // savers (threads or processes) from writing into each other's temp file.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw UsageError(fmt::format("cannot write trace file '{}': {}", path, std::strerror(errno)));

  auto fail = [&](const char* step) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return UsageError(fmt::format("cannot write trace file '{}': {}: {}", path, step, std::strerror(err)));
  };
  if (!write_all(fd, bytes)) throw fail("write");
  if (::fsync(fd) != 0) throw fail("fsync");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0) throw fail("close");
  return tmp;
}

// Makes the rename or link itself durable; a failure here loses nothing
// that the caller could act on, so it is not reported.
void sync_parent(const std::string& path) {
  int dir = ::open(parent_dir(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace

void save_trace(const std::string& path, const proto::Trace& trace) {
  std::string tmp = write_temporary(path, trace);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw InternalError(fmt::format("cannot write trace file '{}': rename: {}", path, std::strerror(err)));
  }
  sync_parent(path);
}

void save_new_trace(const std::string& path, const proto::Trace& trace) {
  if (path.empty()) throw UsageError("cannot save: no file named");
  std::string tmp;
  try {
    tmp = write_temporary(path, trace);
  } catch (const InternalError& e) {
    throw UsageError(e.what());
  }
  // link() never follows a symlink at `path` and fails when anything is there.
  int linked = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (linked != 0) {
    if (err == EEXIST)
      throw UsageError(fmt::format("cannot save to '{}': it exists (save writes only new files)", path));
    throw UsageError(fmt::format("cannot save to '{}': {}", path, std::strerror(err)));
  }
  sync_parent(path);
}

proto::Trace load_trace(const std::string& path) {
  auto unreadable = [&](int err) {
    return UsageError(fmt::format("cannot read trace file '{}': {}", path, std::strerror(err)));
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw unreadable(errno);
  std::string bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw unreadable(err);
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);

  std::string_view view(bytes);
  // A prefix of the magic is a trace cut short, anything else is not a trace.
  if (view.substr(0, kMagic.size()) != kMagic.substr(0, std::min(view.size(), kMagic.size())))
    throw UsageError(fmt::format("'{}': not a ctrl trace file", path));
  if (view.size() < kHeaderSize) throw UsageError(fmt::format("'{}': trace file is truncated", path));
  const uint64_t length = get_le64(view.substr(8, 8));
  const uint64_t checksum = get_le64(view.substr(16, 8));
  const std::string_view payload = view.substr(kHeaderSize);
  if (length > payload.size()) throw UsageError(fmt::format("'{}': trace file is truncated", path));
  if (length < payload.size())
    throw UsageError(fmt::format("'{}': trace file is corrupt (unexpected bytes after the trace)", path));
  if (fnv1a64(payload) != checksum)
    throw UsageError(fmt::format("'{}': trace file is corrupt (checksum mismatch)", path));

  proto::Trace trace;
  if (payload.size() > static_cast<size_t>(INT_MAX))
    throw UsageError(fmt::format("'{}': trace file is too large to be a ctrl trace", path));
  if (!trace.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
    throw UsageError(fmt::format("'{}': trace file is corrupt (unparsable trace)", path));
  if (trace.format_version() != kTraceFormatVersion)
    throw UsageError(fmt::format("'{}': trace format version {} is not supported (this ctrl reads version {})", path,
                                 trace.format_version(), kTraceFormatVersion));
  validate_trace(path, trace);
  return trace;
}

void set_trace_choices(proto::Trace& trace, const std::vector<shm::Choice>& choices) {
  trace.clear_choices();
  size_t n = choices.size();
  while (n > 0 && choices[n - 1].kind == shm::ChoiceKind::Default && choices[n - 1].flags == 0) --n;
  for (size_t k = 0; k < n; ++k) {
    auto* c = trace.add_choices();
    c->set_kind(uint32_t(choices[k].kind));
    c->set_flags(choices[k].flags);
    c->set_from(choices[k].from);
    c->set_value(choices[k].value);
  }
}

std::vector<shm::Choice> trace_choices(const proto::Trace& trace) {
  std::vector<shm::Choice> out;
  out.reserve(size_t(trace.choices_size()));
  for (const auto& c : trace.choices()) {
    shm::Choice choice{};
    choice.kind = shm::ChoiceKind(c.kind());
    choice.flags = uint8_t(c.flags());
    choice.from = c.from();
    choice.value = c.value();
    out.push_back(choice);
  }
  return out;
}

}  // namespace ctrl
