#include "session/ProgramLibraries.h"

#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "cli/ExitStatus.h"

extern char** environ;

namespace ctrl {

namespace {

// PT_INTERP of an x86-64 ELF file, or "" when it has none.
std::string interpreter_of(const std::string& program) {
  std::ifstream in(program, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(std::streamoff(eh.e_phoff + i * sizeof ph));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "";
    if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz > 4096) continue;
    std::string path(ph.p_filesz, '\0');
    in.seekg(std::streamoff(ph.p_offset));
    if (!in.read(path.data(), std::streamsize(path.size()))) return "";
    path.resize(strnlen(path.c_str(), path.size()));
    return path;
  }
  return "";
}

}  // namespace

namespace {

std::vector<std::string> ask_loader(const std::string& program) {
  std::string interp = interpreter_of(program);
  if (interp.empty()) return {};
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // The loader must resolve as the target's would, but without ctrl's own
  // preloads (the agent is not one of the program's libraries).
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (strncmp(*e, "LD_PRELOAD=", 11) != 0) env_strings.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string list = "--list";
  std::string prog = program;
  char* argv[] = {interp.data(), list.data(), prog.data(), nullptr};
  pid_t pid = -1;
  int rc = posix_spawn(&pid, interp.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  if (rc == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
      if (n > 0) text.append(buf, size_t(n));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    // A loader killed part-way lists fewer libraries, and ctrl would then
    // watch fewer of the program's instruction sites without saying so. A
    // loader that exits non-zero (a library not found) is left to the launch,
    // which says what is missing.
    if (WIFSIGNALED(status)) {
      close(out[0]);
      std::string what = fmt::format("the program's loader ({} --list, listing its libraries)", interp);
      if (WTERMSIG(status) == SIGKILL) throw TargetLost(killed_from_outside(what));
      throw TargetLost(fmt::format("{} died of signal {} ({}): the run stops here, nothing is blamed on the program",
                                   what, WTERMSIG(status), strsignal(WTERMSIG(status))));
    }
  }
  close(out[0]);
  // "\tlibgomp.so.1 => /lib/x86_64-linux-gnu/libgomp.so.1 (0x...)"
  std::vector<std::string> libs;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto arrow = line.find(" => /");
    if (arrow == std::string::npos) continue;
    std::string path = line.substr(arrow + 4);
    path = path.substr(0, path.find(" ("));
    std::error_code ec;
    std::string canonical = std::filesystem::canonical(path, ec).string();
    if (!ec) libs.push_back(canonical);
  }
  return libs;
}

}  // namespace

std::vector<std::string> program_libraries(const std::string& program) {
  // Asked once per program and run: the site scan and the launch both need
  // the list (a loader run each, 5-10 ms of every short ctrl run), and so
  // does every -j helper's launch; the environment it depends on is ctrl's.
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(program); it != known.end()) return it->second;
  }
  std::vector<std::string> libs = ask_loader(program);
  std::lock_guard<std::mutex> lock(mutex);
  known.emplace(program, libs);
  return libs;
}

bool is_c_library(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* prefix :
       {"libc.so", "ld-linux", "libpthread.so", "libdl.so", "librt.so", "libm.so", "libmvec.so", "libresolv.so",
        "libanl.so", "libutil.so", "libnsl.so", "libBrokenLocale.so", "libc_malloc_debug.so", "libthread_db.so"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

bool is_sanitizer_runtime(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  for (const char* prefix : {"libasan.so", "libtsan.so", "libhwasan.so", "liblsan.so", "libclang_rt.asan",
                             "libclang_rt.tsan", "libclang_rt.hwasan", "libclang_rt.lsan", "libclang_rt.msan"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace ctrl
