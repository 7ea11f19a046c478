#include "sites/Instrumentation.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "SiteTable.h"
#include "cli/ExitStatus.h"
#include "session/ProgramLibraries.h"
#include "sites/SiteDecoder.h"

namespace ctrl {

namespace fs = std::filesystem;

namespace {

// The C library, its loader and ctrl's agent cannot be instrumented: the
// agent runs on them (a patched site in libc traps inside the agent's own
// calls: every program crashed with a false SIGSEGV). Their synchronisation
// is seen at their functions already (README, "What ctrl sees").
std::string checked_library(const std::string& path, const std::string& name) {
  std::string base = fs::path(path).filename().string();
  for (const char* own : {"libc.so", "libc-", "ld-linux", "ld-2.", "libpthread", "libdl.so", "libctrl-agent"})
    if (base.rfind(own, 0) == 0)
      throw UsageError(
          fmt::format("--instrument {}: the C library, its loader and ctrl's agent cannot be "
                      "instrumented (ctrl's agent runs on them; their locks and atomics are seen at "
                      "their functions already)",
                      name));
  return path;
}

std::string find_library(const std::string& name);

}  // namespace

std::string resolve_library(const std::string& name) { return checked_library(find_library(name), name); }

namespace {

std::string find_library(const std::string& name) {
  std::error_code ec;
  if (name.find('/') != std::string::npos) {
    if (!fs::exists(name, ec)) throw UsageError(fmt::format("--instrument: no such library '{}'", name));
    return fs::canonical(name, ec).string();
  }
  std::vector<std::string> dirs;
  if (const char* llp = getenv("LD_LIBRARY_PATH")) {
    std::stringstream ss(llp);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
                        "/usr/lib", "/usr/local/lib"})
    dirs.emplace_back(d);
  for (const auto& d : dirs) {
    fs::path p = fs::path(d) / name;
    if (fs::exists(p, ec)) return fs::canonical(p, ec).string();
  }
  throw UsageError(fmt::format("--instrument: library '{}' not found (give its path)", name));
}

}  // namespace

Instrumentation::Instrumentation(const std::string& program, const InstrumentationOptions& options) {
  if (options.visible != "all" && options.visible != "atomics")
    throw UsageError(fmt::format("--visible must be all or atomics, not '{}'", options.visible));
  std::vector<std::string> files{program};
  for (const auto& lib : options.libraries) files.push_back(resolve_library(lib));
  if (files.size() > kMaxSiteModules) throw UsageError(fmt::format("at most {} instrumented files", kMaxSiteModules));
  const size_t instrumented = files.size();
  // The program's other libraries (not libc: the agent interposes its
  // functions) are decoded for their inline `syscall` instructions alone,
  // such as libgomp's futex calls: a thread blocked there would otherwise
  // sleep in the kernel, unseen (agent/KernelWaits.h); and for their rdtsc
  // and rdtscp, which must read the virtual TSC (agent/VirtualTsc.h).
  for (const auto& lib : program_libraries(program)) {
    if (files.size() == kMaxSiteModules) break;
    if (is_c_library(lib) || is_sanitizer_runtime(lib) || std::find(files.begin(), files.end(), lib) != files.end())
      continue;
    files.push_back(lib);
  }

  SiteTableHeader header{};
  header.magic = kSiteTableMagic;
  header.version = kSiteTableVersion;
  header.visible_policy = options.visible == "all" ? 0 : 1;
  std::vector<Site> all;
  std::vector<SitePatch> patches;
  std::vector<std::string> parts;
  uint64_t jumps = 0;
  uint32_t m = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    bool syscalls_only = f >= instrumented;
    DecodedModule mod;
    try {
      mod = decode_sites(files[f], uint8_t(m), syscalls_only);
    } catch (const UsageError&) {
      if (syscalls_only) continue;  // not one ctrl can decode: left as it is
      throw;
    }
    // System calls and TSC reads are sites under every policy, in every
    // library the program loads (but libc's).
    auto always = [](const Site& s) { return s.kind == SiteKind::Syscall || s.kind == SiteKind::Tsc; };
    if (syscalls_only && std::none_of(mod.sites.begin(), mod.sites.end(), always)) continue;
    if (files[f].size() >= sizeof header.modules[m].path) {
      if (syscalls_only) continue;
      throw UsageError(fmt::format("path too long for instrumentation: {}", files[f]));
    }
    std::strncpy(header.modules[m].path, files[f].c_str(), sizeof header.modules[m].path - 1);
    header.modules[m].file_size = mod.file_size;
    header.modules[m].flags = syscalls_only ? kModuleSyscallsOnly : 0;
    ++m;
    uint64_t kept = 0;
    for (size_t i = 0; i < mod.sites.size(); ++i) {
      const Site& s = mod.sites[i];
      bool atomic = (s.flags & kSiteLocked) || s.kind == SiteKind::Fence || always(s);
      if (syscalls_only && !always(s)) continue;
      if (options.visible == "atomics" && !atomic) continue;
      SitePatch p = mod.patches[i];
      all.push_back(s);
      patches.push_back(p);
      if (takes_jump(p)) ++jumps;
      ++kept;
    }
    parts.push_back(fmt::format("{} in {}{}", kept, fs::path(files[f]).filename().string(),
                                syscalls_only ? " (system calls, rdtsc)" : ""));
  }
  header.module_count = m;
  header.count = all.size();
  count_ = all.size();
  summary_ = fmt::format("{} instruction sites ({}; visible: {}; {} taken by jump, {} by int3)", count_,
                         fmt::join(parts, ", "), options.visible, jumps, count_ - jumps);

  fd_ = memfd_create("ctrl-sites", MFD_CLOEXEC);
  if (fd_ < 0) throw InternalError(std::string("memfd_create: ") + strerror(errno));
  size_t size = site_table_size(all.size());
  if (ftruncate(fd_, off_t(size)) != 0) throw InternalError(std::string("ftruncate: ") + strerror(errno));
  size_t sites_bytes = all.size() * sizeof(Site);
  if (pwrite(fd_, &header, sizeof header, 0) != ssize_t(sizeof header) ||
      (!all.empty() && pwrite(fd_, all.data(), sites_bytes, sizeof header) != ssize_t(sites_bytes)) ||
      (!all.empty() && pwrite(fd_, patches.data(), all.size() * sizeof(SitePatch),
                              off_t(sizeof header + sites_bytes)) != ssize_t(all.size() * sizeof(SitePatch))))
    throw InternalError(std::string("writing the site table: ") + strerror(errno));
}

Instrumentation::~Instrumentation() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace ctrl
