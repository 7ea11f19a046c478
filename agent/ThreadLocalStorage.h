// The static thread-local storage of the calling thread: the TLS blocks of
// the program and of the libraries loaded with it, which glibc initialises
// (.tdata copied, .tbss zeroed) for the main thread at startup and for every
// other thread in pthread_create, in code ctrl does not see. Under
// --model c11/rc11 a read of a _Thread_local atomic that no store of the
// execution happens before reads that initialisation, not an uninitialised
// value (controller/exploration/ModelBugs.h).
//
// x86-64 is TLS variant II: the static blocks lie right below the thread
// pointer, at the same offsets in every thread. Dynamic TLS (a library
// dlopen'd later whose TLS did not fit in the static surplus) is allocated
// lazily, at the thread's first access through __tls_get_addr inside the
// dynamic loader, which the agent does not see: it is not covered.
#pragma once

#include <cstdint>

namespace ctrl::agent {

struct TlsSpan {
  uint64_t lo = 0, hi = 0;  // [lo, hi): empty when lo == hi
};

// The calling thread's static TLS blocks, from the lowest block to the
// thread pointer. Async-signal-unsafe (dl_iterate_phdr, once per process).
TlsSpan own_static_tls();

}  // namespace ctrl::agent
