/* Built with -fsanitize=thread: every atomic TSan exports, at every width
 * (8, 16, 32, 64 and 128 bits): load, store, exchange, fetch_add/sub/and/
 * or/xor/nand, compare_exchange_strong/weak (GCC's calls) and _val (clang's:
 * called here directly), thread_fence, signal_fence, with various orders.
 * Two threads run the same operations on their own variables, checking each
 * result, so a wrapper that performed the wrong operation fails an
 * assertion. With the argument "fail" the program aborts at the end: the
 * bug's interleaving lists every atomic ctrl saw. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wtsan" /* "atomic_thread_fence is not supported": TSan ignores fences */
#endif
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define OPS(N, T, name)                                                                                       \
  T __tsan_atomic##N##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo);                        \
  struct name {                                                                                               \
    T add, sub, and_, or_, xor_, nand, xchg, strong, weak, val;                                               \
  };                                                                                                          \
  static void run_##name(struct name* v) {                                                                    \
    __atomic_store_n(&v->add, 40, __ATOMIC_RELAXED);                                                          \
    __atomic_store_n(&v->sub, 10, __ATOMIC_RELEASE);                                                          \
    __atomic_store_n(&v->and_, 0xf, __ATOMIC_SEQ_CST);                                                        \
    assert(__atomic_fetch_add(&v->add, 2, __ATOMIC_RELAXED) == 40);                                           \
    assert(__atomic_add_fetch(&v->add, 1, __ATOMIC_ACQ_REL) == 43);                                           \
    assert(__atomic_fetch_sub(&v->sub, 3, __ATOMIC_RELEASE) == 10);                                           \
    assert(__atomic_fetch_and(&v->and_, 0x6, __ATOMIC_ACQUIRE) == 0xf);                                       \
    assert(__atomic_fetch_or(&v->or_, 0x5, __ATOMIC_SEQ_CST) == 0);                                           \
    assert(__atomic_fetch_xor(&v->xor_, 0x3, __ATOMIC_RELAXED) == 0);                                         \
    assert(__atomic_fetch_nand(&v->nand, 0x1, __ATOMIC_SEQ_CST) == 0);                                        \
    assert(__atomic_exchange_n(&v->xchg, 7, __ATOMIC_ACQ_REL) == 0);                                          \
    T e = 1;                                                                                                  \
    assert(!__atomic_compare_exchange_n(&v->strong, &e, 9, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) && e == 0); \
    assert(__atomic_compare_exchange_n(&v->strong, &e, 9, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));            \
    while (!__atomic_compare_exchange_n(&v->weak, &e, 5, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {            \
    }                                                                                                         \
    assert(__tsan_atomic##N##_compare_exchange_val(&v->val, 0, 4, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) == 0);  \
    assert(__tsan_atomic##N##_compare_exchange_val(&v->val, 0, 6, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE) == 4);  \
    assert(__atomic_load_n(&v->add, __ATOMIC_ACQUIRE) == 43);                                                 \
    assert(v->sub == 7 && v->and_ == 0x6 && v->or_ == 0x5 && v->xor_ == 0x3);                                 \
    assert(v->nand == (T) ~(T)0 && v->xchg == 7 && v->strong == 9 && v->weak == 5);                           \
    assert(v->val == 4);                                                                                      \
  }
OPS(8, unsigned char, w8)
OPS(16, unsigned short, w16)
OPS(32, unsigned int, w32)
OPS(64, unsigned long, w64)
OPS(128, unsigned __int128, w128)

struct all {
  struct w8 a;
  struct w16 b;
  struct w32 c;
  struct w64 d;
  struct w128 e;
};

static void run(struct all* v) {
  run_w8(&v->a);
  run_w16(&v->b);
  run_w32(&v->c);
  run_w64(&v->d);
  run_w128(&v->e);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static struct all mine, theirs;

static void* worker(void* arg) {
  (void)arg;
  run(&theirs);
  return 0;
}

int main(int argc, char** argv) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  run(&mine);
  pthread_join(t, 0);
  if (argc > 1 && strcmp(argv[1], "fail") == 0) abort();
  return 0;
}
