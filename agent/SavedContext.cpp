#include "SavedContext.h"

// Offsets follow SavedContext's fields.
asm(R"(
  .text
  .globl ctrl_context_save
  .hidden ctrl_context_save
  .type ctrl_context_save, @function
ctrl_context_save:
  .cfi_startproc
  mov %rbx, 0(%rdi)
  mov %rbp, 8(%rdi)
  mov %r12, 16(%rdi)
  mov %r13, 24(%rdi)
  mov %r14, 32(%rdi)
  mov %r15, 40(%rdi)
  lea 8(%rsp), %rax
  mov %rax, 48(%rdi)
  mov (%rsp), %rax
  mov %rax, 56(%rdi)
  stmxcsr 64(%rdi)
  fnstcw 68(%rdi)
  xor %eax, %eax
  ret
  .cfi_endproc
  .size ctrl_context_save, .-ctrl_context_save

  .globl ctrl_context_resume
  .hidden ctrl_context_resume
  .type ctrl_context_resume, @function
ctrl_context_resume:
  .cfi_startproc
  mov 0(%rdi), %rbx
  mov 8(%rdi), %rbp
  mov 16(%rdi), %r12
  mov 24(%rdi), %r13
  mov 32(%rdi), %r14
  mov 40(%rdi), %r15
  ldmxcsr 64(%rdi)
  fldcw 68(%rdi)
  mov 48(%rdi), %rsp
  mov $1, %eax
  jmp *56(%rdi)
  .cfi_endproc
  .size ctrl_context_resume, .-ctrl_context_resume

  .globl ctrl_call_on_stack
  .hidden ctrl_call_on_stack
  .type ctrl_call_on_stack, @function
ctrl_call_on_stack:
  .cfi_startproc
  mov %rdx, %rsp
  and $-16, %rsp
  mov %rdi, %rax
  mov %rsi, %rdi
  call *%rax
  ud2
  .cfi_endproc
  .size ctrl_call_on_stack, .-ctrl_call_on_stack
)");
