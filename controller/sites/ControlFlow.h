// Instructions that end straight-line code, for the passes that look past a
// site: the register liveness scan stops at them, and the patch planner
// never moves them into a trampoline nor lets a jump cover them.
#pragma once

#include <capstone/x86.h>

namespace ctrl::decoding {

// True for a capstone x86 instruction id that may transfer control: jumps,
// calls, returns, loops, interrupts and system calls, ud2/hlt, endbr (a
// branch target marker) and the RTM instructions.
inline bool is_control_flow(unsigned id) {
  switch (id) {
    case X86_INS_JMP:
    case X86_INS_LJMP:
    case X86_INS_CALL:
    case X86_INS_LCALL:
    case X86_INS_RET:
    case X86_INS_RETF:
    case X86_INS_RETFQ:
    case X86_INS_IRET:
    case X86_INS_IRETD:
    case X86_INS_IRETQ:
    case X86_INS_LOOP:
    case X86_INS_LOOPE:
    case X86_INS_LOOPNE:
    case X86_INS_JCXZ:
    case X86_INS_JECXZ:
    case X86_INS_JRCXZ:
    case X86_INS_JAE:
    case X86_INS_JA:
    case X86_INS_JBE:
    case X86_INS_JB:
    case X86_INS_JE:
    case X86_INS_JGE:
    case X86_INS_JG:
    case X86_INS_JLE:
    case X86_INS_JL:
    case X86_INS_JNE:
    case X86_INS_JNO:
    case X86_INS_JNP:
    case X86_INS_JNS:
    case X86_INS_JO:
    case X86_INS_JP:
    case X86_INS_JS:
    case X86_INS_SYSCALL:
    case X86_INS_SYSENTER:
    case X86_INS_INT:
    case X86_INS_INT1:
    case X86_INS_INT3:
    case X86_INS_INTO:
    case X86_INS_UD2:
    case X86_INS_HLT:
    case X86_INS_ENDBR64:
    case X86_INS_ENDBR32:
    case X86_INS_XBEGIN:
    case X86_INS_XABORT:
    case X86_INS_XEND:
      return true;
    default:
      return false;
  }
}

// The jump planner: a site of 5 bytes or more takes a jmp alone; a shorter
// one only with the instructions right after it, and only when every one of

}  // namespace ctrl::decoding
