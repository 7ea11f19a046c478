#include "Backtracer.h"

#include <libunwind-ptrace.h>

#include <new>

#include "ExitStatus.h"

namespace ctrl {

Backtracer::Backtracer() : space_(unw_create_addr_space(&_UPT_accessors, 0)) {
  if (!space_) throw InternalError("libunwind cannot create an address space for the target");
  unw_set_caching_policy(space_, UNW_CACHE_GLOBAL);
}

Backtracer::~Backtracer() { unw_destroy_addr_space(space_); }

std::vector<uint64_t> Backtracer::unwind(pid_t tid, size_t max_frames) {
  std::vector<uint64_t> ips;
  // Reserving everything up front means nothing below can throw while the
  // ptrace context is alive.
  try {
    ips.reserve(max_frames);
  } catch (const std::exception&) {
    return ips;
  }
  if (max_frames == 0) return ips;

  // The ptrace context is per call rather than cached per tid: it holds the
  // ELF image last used for unwinding, and a tid can be reused by a thread
  // of another execution process with other mappings.
  void* context = _UPT_create(tid);
  if (!context) return ips;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, space_, context) == 0) {
    while (ips.size() < max_frames) {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
      ips.push_back(ip);
      if (unw_step(&cursor) <= 0) break;
    }
  }
  _UPT_destroy(context);
  return ips;
}

void Backtracer::flush() { unw_flush_cache(space_, 0, 0); }

}  // namespace ctrl
