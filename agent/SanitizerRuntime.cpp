#include "SanitizerRuntime.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

#include "AgentDescriptors.h"
#include "RealFunctions.h"
#include "Signals.h"

namespace ctrl::agent::sanitizer {

namespace {

int report_fd = -1;
bool runtime_present = false;
void (*set_report_fd)(void*) = nullptr;
// The runtime's pthread_create interceptor: [start, end).
uint64_t interceptor_start = 0, interceptor_end = 0;

const char* file_name(const char* path) {
  const char* name = strrchr(path, '/');
  return name ? name + 1 : path;
}

bool thread_sanitizer_file(const char* path) {
  if (!path) return false;
  const char* name = file_name(path);
  return strncmp(name, "libtsan.so", 10) == 0 || strncmp(name, "libclang_rt.tsan", 16) == 0;
}

bool runtime_file(const char* path) {
  if (!path) return false;
  const char* name = file_name(path);
  for (const char* prefix : {"libasan.so", "libtsan.so", "libhwasan.so", "liblsan.so", "libubsan.so",
                             "libclang_rt."})
    if (strncmp(name, prefix, strlen(prefix)) == 0) return true;
  return false;
}

}  // namespace

void init() {
  set_report_fd = reinterpret_cast<void (*)(void*)>(dlsym(RTLD_DEFAULT, "__sanitizer_set_report_fd"));
  if (!set_report_fd) return;
  runtime_present = true;
  // The program's pthread_create is the runtime's interceptor (it comes
  // first); its calls to the real one come from inside it.
  void* create = dlsym(RTLD_DEFAULT, "pthread_create");
  Dl_info info{};
  void* sym_entry = nullptr;
  if (create && dladdr1(create, &info, &sym_entry, RTLD_DL_SYMENT) && sym_entry &&
      runtime_file(info.dli_fname)) {
    interceptor_start = reinterpret_cast<uint64_t>(info.dli_saddr);
    interceptor_end = interceptor_start + static_cast<const ElfW(Sym)*>(sym_entry)->st_size;
  }
  report_fd = memfd_create("ctrl-sanitizer-report", MFD_CLOEXEC);
  if (report_fd < 0) return;
  hold_descriptor(&report_fd);
  set_report_fd(reinterpret_cast<void*>(intptr_t(report_fd)));
}

bool present() { return runtime_present; }

bool runtime_library(const char* path) { return runtime_file(path); }

void start_execution() {
  if (report_fd < 0) return;
  if (ftruncate(report_fd, 0) == 0) lseek(report_fd, 0, SEEK_SET);
  // The runtime closes a report descriptor set by another process (the
  // execution is a fork of the one that set it) before it writes: set it
  // again in this one.
  set_report_fd(reinterpret_cast<void*>(intptr_t(report_fd)));
}

bool internal_thread(uint64_t site) {
  if (!runtime_present) return false;
  if (site >= interceptor_start && site < interceptor_end) return false;
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(site), &info) && runtime_file(info.dli_fname);
}

bool take_wrapped_start(void* (*fn)(void*), void* arg, void* (*entry)(void*), ProgramStart* program) {
  if (!runtime_present || !arg) return false;
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(fn), &info) || !thread_sanitizer_file(info.dli_fname)) return false;
  // TSan's ThreadParam: {callback, param, tid, created, started}.
  auto* param = static_cast<ProgramStart*>(arg);
  Dl_info callback{};
  if (!param->fn || (dladdr(reinterpret_cast<void*>(param->fn), &callback) && runtime_file(callback.dli_fname)))
    return false;
  *program = *param;
  param->fn = entry;
  param->arg = nullptr;
  return true;
}

namespace {
struct InternalStart {
  void* (*fn)(void*);
  void* arg;
};
// Few: TSan starts one background thread per process.
InternalStart starts[8];
unsigned nstarts = 0;

void* internal_start(void* p) {
  unblock_managed_signals();
  auto* start = static_cast<InternalStart*>(p);
  return start->fn(start->arg);
}
}  // namespace

int start_internal_thread(pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  if (nstarts == sizeof starts / sizeof starts[0]) return real.pthread_create(thread, attr, fn, arg);
  InternalStart* start = &starts[nstarts++];
  *start = InternalStart{fn, arg};
  return real.pthread_create(thread, attr, internal_start, start);
}

size_t report(char* out, size_t size) {
  if (report_fd < 0 || size == 0) return 0;
  static char text[16384];
  ssize_t n = pread(report_fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  text[n] = 0;
  // The whole report where it would have gone (a truncated copy beyond 16 KiB).
  for (ssize_t done = 0; done < n;) {
    ssize_t w = write(2, text + done, size_t(n - done));
    if (w <= 0) break;
    done += w;
  }
  // From the line naming the error ("==pid==ERROR: AddressSanitizer: ...",
  // "WARNING: ThreadSanitizer: data race ..."), then as many lines as fit,
  // keeping room for the SUMMARY line.
  const char* first = text;
  for (const char* key : {"ERROR: ", "WARNING: ", "runtime error: "})
    if (const char* at = strstr(text, key)) {
      first = at;
      break;
    }
  const char* summary = strstr(text, "SUMMARY: ");
  size_t summary_len = summary ? strcspn(summary, "\n") : 0;
  size_t room = size - 1 > summary_len + 1 ? size - 1 - summary_len - 1 : 0;
  size_t len = 0;
  const char* end = summary && summary > first ? summary : text + n;
  while (first < end) {
    size_t line = strcspn(first, "\n");
    if (first + line > end) line = size_t(end - first);
    // Skip the separator lines ("=====", blank).
    bool noise = line == 0 || first[0] == '=';
    if (!noise) {
      if (len + line + 1 > room) break;
      memcpy(out + len, first, line);
      len += line;
      out[len++] = '\n';
    }
    first += line + (first[line] == '\n' ? 1 : 0);
  }
  if (summary && len + summary_len < size) {
    memcpy(out + len, summary, summary_len);
    len += summary_len;
  } else if (len > 0) {
    --len;  // the last newline
  }
  out[len] = 0;
  return len;
}

}  // namespace ctrl::agent::sanitizer
