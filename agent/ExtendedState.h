// What a jump site's trampoline saves of a thread's extended (vector,
// x87) state around the hook, and how (InstructionSites.cpp).
//
// The hook's C++ code and libc may use any vector register (libc's string
// functions use ymm16-31 and the opmask registers where AVX-512 exists), so
// every component they can change is saved: every component the OS enables
// (XCR0) except AMX's tile configuration and data, which no code of the
// agent or libc executes. Those two make up 8 KiB of the 11 KiB a plain
// XSAVE of everything writes on a CPU with AMX: on such a CPU the save and
// restore were about a sixth of the target's time per queue2 execution.
//
// Where the CPU has XSAVEC the image is in the compacted format and
// components in their initial state are not written (XSTATE_BV bit clear):
// the program's state is usually initial for all but x87 and SSE. The
// legacy region (x87, SSE: the first 512 bytes) and the header (the next
// 64) are laid out as in the standard format in both, so a reader of the
// xmm registers (SiteMath.h, LoopState.h) needs no change; XRSTOR reads
// either format (XCOMP_BV bit 63). (Not XSAVEOPT: its "not modified since
// the last XRSTOR from this address" optimisation trusts the image's memory
// to be unchanged in between, which a rollback of the hook stack does not
// guarantee.)
#pragma once

#include <cstdint>

namespace ctrl::agent {

struct ExtendedState {
  uint64_t mask = 0;       // the components saved (EDX:EAX of XSAVE*/XRSTOR)
  uint32_t size = 0;       // bytes of the image, a multiple of 64
  bool compacted = false;  // saved with XSAVEC, else XSAVE

  static ExtendedState of_this_cpu();
};

}  // namespace ctrl::agent
