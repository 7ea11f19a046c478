// The assembly behind ParkContext.h (x86-64 System V; the system call
// instruction changes only rax, rcx and r11).
#include "ParkContext.h"

#include <sys/syscall.h>

#define CTRL_STR2(x) #x
#define CTRL_STR(x) CTRL_STR2(x)

__asm__(
    ".text\n"
    ".globl ctrl_park_sleep\n"
    ".hidden ctrl_park_sleep\n"
    ".type ctrl_park_sleep, @function\n"
    "ctrl_park_sleep:\n"
    // Call frame information, so that unwinders (bug reports' backtraces,
    // gdb) go through a parked thread's sleep: rsp never moves here.
    "  .cfi_startproc\n"
    "  mov %rbx, 0(%rdx)\n"
    "  mov %rbp, 8(%rdx)\n"
    "  mov %r12, 16(%rdx)\n"
    "  mov %r13, 24(%rdx)\n"
    "  mov %r14, 32(%rdx)\n"
    "  mov %r15, 40(%rdx)\n"
    "  mov %rsp, 48(%rdx)\n"
    "  mov (%rsp), %rax\n"
    "  mov %rax, 56(%rdx)\n"
    "  stmxcsr 64(%rdx)\n"
    "  fnstcw 68(%rdx)\n"
    "  movl $1, 72(%rdx)\n"
    // futex(word, FUTEX_WAIT_PRIVATE, expected, NULL); r8 (uaddr2, unused
    // by FUTEX_WAIT) keeps ctx across the call.
    "  mov %rdx, %r8\n"
    "  mov %esi, %edx\n"
    "  mov $128, %esi\n"
    "  xor %r10d, %r10d\n"
    "  mov $" CTRL_STR(SYS_futex) ", %eax\n"
    "  syscall\n"
    "  movl $0, 72(%r8)\n"
    "  ret\n"
    "  .cfi_endproc\n"
    ".size ctrl_park_sleep, .-ctrl_park_sleep\n"

    ".globl ctrl_park_resume\n"
    ".hidden ctrl_park_resume\n"
    ".type ctrl_park_resume, @function\n"
    "ctrl_park_resume:\n"
    "  .cfi_startproc\n"
    "  mov 0(%rdi), %rbx\n"
    "  mov 8(%rdi), %rbp\n"
    "  mov 16(%rdi), %r12\n"
    "  mov 24(%rdi), %r13\n"
    "  mov 32(%rdi), %r14\n"
    "  mov 40(%rdi), %r15\n"
    "  ldmxcsr 64(%rdi)\n"
    "  fldcw 68(%rdi)\n"
    "  mov 48(%rdi), %rsp\n"
    "  mov 56(%rdi), %rcx\n"
    "  add $8, %rsp\n"
    "  xor %eax, %eax\n"
    "  jmp *%rcx\n"
    "  .cfi_endproc\n"
    ".size ctrl_park_resume, .-ctrl_park_resume\n"

    // rdi flags, rsi stack, rdx parent_tid, rcx child_tid, r8 tls, r9 fn,
    // 8(%rsp) arg. fn and arg travel in callee-saved registers, which the
    // child inherits.
    ".globl ctrl_clone_thread\n"
    ".hidden ctrl_clone_thread\n"
    ".type ctrl_clone_thread, @function\n"
    "ctrl_clone_thread:\n"
    "  .cfi_startproc\n"
    "  push %r12\n"
    "  .cfi_adjust_cfa_offset 8\n"
    "  .cfi_rel_offset %r12, 0\n"
    "  push %r13\n"
    "  .cfi_adjust_cfa_offset 8\n"
    "  .cfi_rel_offset %r13, 0\n"
    "  mov %r9, %r12\n"
    "  mov 24(%rsp), %r13\n"
    "  mov %rcx, %r10\n"
    "  mov $" CTRL_STR(SYS_clone) ", %eax\n"
    "  syscall\n"
    "  test %rax, %rax\n"
    "  jz 1f\n"
    "  pop %r13\n"
    "  .cfi_adjust_cfa_offset -8\n"
    "  pop %r12\n"
    "  .cfi_adjust_cfa_offset -8\n"
    "  ret\n"
    "1:\n"
    // The new thread: its outermost frame.
    "  .cfi_undefined %rip\n"
    "  xor %ebp, %ebp\n"
    "  mov %r13, %rdi\n"
    "  call *%r12\n"
    "  ud2\n"
    "  .cfi_endproc\n"
    ".size ctrl_clone_thread, .-ctrl_clone_thread\n");
