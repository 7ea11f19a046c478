// The agent's start-up, run as a constructor when the dynamic loader maps
// libctrl-agent.so into the target: find the controller's channel and shared
// region from the environment, say hello, and adopt the main thread as T0.
// Without the environment (a program the target starts itself) the agent
// stays inert and every interposer forwards to libc.
#include <gnu/libc-version.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "Framing.h"
#include "InstructionSites.h"
#include "KernelWaits.h"
#include "LoopState.h"
#include "OwnMemory.h"
#include "OwnPid.h"
#include "RealFunctions.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SanitizerRuntime.h"
#include "TsanAtomics.h"
#include "ThreadLocalStorage.h"
#include "Signals.h"
#include "StartupRandom.h"
#include "VirtualClock.h"
#include "VirtualTsc.h"
#include "VirtualVdso.h"
#include "control.pb.h"

using namespace ctrl;
using namespace ctrl::agent;

// The initial stack pointer, kept by the dynamic linker.
extern "C" void* __libc_stack_end;

namespace {

constexpr uint32_t kProtocolVersion = 1;

int env_fd(const char* name) {
  const char* v = getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  long fd = strtol(v, &end, 10);
  return *end == 0 && fd >= 0 && fd < INT_MAX ? int(fd) : -1;
}

[[noreturn]] void fail(int fd, const std::string& why) {
  if (fd >= 0) {
    proto::ControlMessage m;
    m.mutable_error()->set_message(why);
    framing::send_message(fd, m);
  }
  fprintf(stderr, "ctrl agent: %s\n", why.c_str());
  _exit(112);
}

// Among the last code of a process that exits normally: after the program's
// exit handlers and destructors (the agent is finalised after the program).
__attribute__((destructor)) void agent_fini() { rt.execution_finished(); }

// The standard streams get their buffers here, from static storage. libc
// would allocate them on the heap at their first use, sized by what the
// descriptor is (1024 bytes for a terminal, 4096 for /dev/null or a pipe),
// so every later heap address differed between a run whose output went to a
// terminal (--show-output, a replay run in one) and one whose output did not:
// a replay diverged on them. The buffering modes stay libc's.
void give_stdio_static_buffers() {
  static char out_buffer[BUFSIZ], in_buffer[BUFSIZ];
  setvbuf(stdout, out_buffer, isatty(1) ? _IOLBF : _IOFBF, sizeof out_buffer);
  setvbuf(stdin, in_buffer, isatty(0) ? _IOLBF : _IOFBF, sizeof in_buffer);
}

__attribute__((constructor)) void agent_init() {
  int control = env_fd("CTRL_CONTROL_FD");
  int region_fd = env_fd("CTRL_REGION_FD");
  int sites_fd = env_fd("CTRL_SITES_FD");
  // Tests: behave as on a kernel without asynchronous userfaultfd
  // write-protect (executions fall back to a process each).
  if (getenv("CTRL_TEST_NO_UFFD")) rollback::pretend_unsupported();
  unsetenv("CTRL_TEST_NO_UFFD");
  // Programs this one starts must not find the controller's descriptors.
  unsetenv("CTRL_CONTROL_FD");
  unsetenv("CTRL_REGION_FD");
  unsetenv("CTRL_SITES_FD");
  if (const char* missing = resolve_real_functions()) fail(control, std::string("cannot resolve ") + missing);
  // (Before anything reads a clock through the agent's interposers.)
  if (region_fd >= 0) virtual_clock::init_from_region(region_fd);
  if (control < 0 || region_fd < 0) return;
  sanitizer::init();
  if (const char* unfollowed = tsan_atomics::bind()) fail(control, unfollowed);
  own_pid_init();

  AgentScope scope;
  give_stdio_static_buffers();
  shm::Header probe;
  if (pread(region_fd, &probe, sizeof probe, 0) != ssize_t(sizeof probe) || probe.magic != shm::kMagic ||
      probe.version != shm::kVersion)
    fail(control, "the shared region is not ctrl's (version mismatch between ctrl and its agent?)");
  void* base = mmap(nullptr, probe.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, region_fd, 0);
  if (base == MAP_FAILED) fail(control, std::string("cannot map the shared region: ") + strerror(errno));
  close(region_fd);
  rt.region = shm::View::of(base);
  rt.control_fd = control;
  if (sites_fd >= 0) {
    if (const char* err = sites.load(sites_fd)) fail(control, err);
    close(sites_fd);
  }

  char exe[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) exe[0] = 0;
  proto::ControlMessage hello;
  auto* h = hello.mutable_hello();
  h->set_protocol_version(kProtocolVersion);
  h->set_agent_version(CTRL_VERSION);
  h->set_pid(getpid());
  h->set_executable(exe);
  h->set_glibc_version(gnu_get_libc_version());
  h->set_max_threads(shm::kMaxThreads);
  h->set_region_size(probe.region_size);
  if (!framing::send_message(control, hello)) _exit(112);

  uint32_t main_thread = rt.model.add_thread();
  rt.model.thread(main_thread).handle = uint64_t(pthread_self());
  rt.model.thread(main_thread).pending.kind = OpKind::None;
  t_me = main_thread;
  {
    // The main stack grows down from its end, at most RLIMIT_STACK (the
    // kernel keeps mappings out of that range).
    uint64_t top = reinterpret_cast<uint64_t>(__libc_stack_end), size = uint64_t(1) << 30;
    struct rlimit limit;
    if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < size)
      size = limit.rlim_cur;
    set_stack(top > size ? top - size : 0, top);
    // Its own memory (OwnMemory.h): that stack, and its static TLS with
    // the header of its thread control block (the stack protector's guard
    // at fs:0x28 ...), which only libc touches in other threads.
    TlsSpan tls = own_static_tls();
    own_memory::set_main({top > size ? top - size : 0, top}, {tls.lo, tls.hi + 64});
  }
  Runtime::find_tid_word();
  note_outside_descriptors();
  rt.enabled = true;
  // The program's rdtsc, its runtime's direct vDSO calls and its start-up
  // random bytes are the trace's from here on (Go's runtime, which starts
  // after every constructor, seeds its threads' random generators from
  // them). The vDSO's code reads the TSC: rdtsc traps only once the vDSO's
  // clocks are system calls.
  if (virtual_vdso::redirect_clocks() && virtual_tsc::start()) {
    if (sites.tsc_reads() > 0) {
      take_early_for_tsc(SIGTRAP);
      if (const char* err = sites.patch_tsc_reads()) fail(control, err);
    }
    if (virtual_tsc::request_trap()) {
      take_early_for_tsc(SIGSEGV);
      virtual_tsc::confirm_trap();
    }
  }
  startup_random::make_replayable();
}

}  // namespace
