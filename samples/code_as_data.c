/* Code that reads bytes of its own instructions as data, as V8's builtins
 * do (a rip-relative load of an earlier instruction's immediate). The load
 * from `p` is a short site that ctrl patches with a jump covering the
 * movabs after it: the immediate, past the jump's own 5 bytes, must still
 * read as the program wrote it (ctrl once filled it with int3s); and an
 * immediate within a jump's 5 bytes makes the site take an int3.
 * Exits 0 when it does (an assertion fails otherwise). */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* movq (%rdi), %rcx: 3 bytes, as short a site as V8's `mov 0x1f(%rsi),%rsi`
 * (4); movabsq: 10 bytes, its immediate at +5, after the jump's 5 bytes. */
__asm__(
    ".text\n.globl load_and_constant\n.type load_and_constant,@function\nload_and_constant:\n"
    "\tmovq (%rdi), %rcx\n"
    "\tmovabsq $0x1122334455667788, %rdx\n"
    "\tmovq load_and_constant+5(%rip), %rax\n"
    "\tret\n"
    ".size load_and_constant, .-load_and_constant\n");
uint64_t load_and_constant(const long *p);
/* The same with a 2-byte site: the immediate starts at +4, inside the 5
 * bytes a jump patch would write, so the site must take an int3 instead. */
__asm__(".text\n.globl load_and_near_constant\n.type load_and_near_constant,@function\nload_and_near_constant:\n"
        "\tmovl (%rdi), %ecx\n"
        "\tmovabsq $0x5566778899aabbcc, %rdx\n"
        "\tmovq load_and_near_constant+4(%rip), %rax\n"
        "\tret\n"
        ".size load_and_near_constant, .-load_and_near_constant\n");
uint64_t load_and_near_constant(const long *p);

static long shared;

static void *work(void *arg) {
  uint64_t v = load_and_constant(&shared);
  if (v != 0x1122334455667788ull) fprintf(stderr, "read %#llx\n", (unsigned long long)v);
  assert(v == 0x1122334455667788ull);
  v = load_and_near_constant(&shared);
  if (v != 0x5566778899aabbccull) fprintf(stderr, "read %#llx\n", (unsigned long long)v);
  assert(v == 0x5566778899aabbccull);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, work, NULL);
  __atomic_store_n(&shared, 1, __ATOMIC_SEQ_CST);
  pthread_join(t, NULL);
  return 0;
}
