/* Vyukov's unbounded single-producer single-consumer queue with an
 * eventcount for blocking, as in CDSChecker's SPSC benchmark (Norris and
 * Demsky, TOPLAS 2016, which found its known deadlock on the first
 * execution). The producer links a node with a release store and signals;
 * a consumer that finds the queue empty announces itself in the eventcount
 * (a seq_cst RMW setting the waiter bit), looks again, and sleeps on a
 * condition variable until the count changes. Every atomic is a libatomic
 * call (-fno-inline-atomics).
 *
 * The buggy version signals with a relaxed load of the count
 * (signal_relaxed): the producer's link-then-check and the consumer's
 * announce-then-check are a store-buffering pair, so under C11 the producer
 * can miss the waiter bit while the consumer misses the node, and the
 * consumer sleeps forever (a deadlock). C11_FIXED: the signal reads the
 * count with a seq_cst RMW (fetch_add 0), which SB with seq_cst forbids.
 * Under SC both are correct. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#define WAITERS 0x80000000u

struct node {
  struct node *next;
  long data; /* plain: published by the release store of the link */
};

static struct node *head; /* the producer's */
static struct node *tail; /* the consumer's */

static unsigned count;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static void signal_impl(unsigned cmp) {
  if (cmp & WAITERS) {
    pthread_mutex_lock(&mutex);
    while (!__atomic_compare_exchange_n(&count, &cmp, (cmp + 1) & ~WAITERS, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    pthread_mutex_unlock(&mutex);
    pthread_cond_broadcast(&changed);
  }
}

static void ec_signal(void) {
#ifdef C11_FIXED
  signal_impl(__atomic_fetch_add(&count, 0, __ATOMIC_SEQ_CST));
#else
  signal_impl(__atomic_load_n(&count, __ATOMIC_RELAXED));
#endif
}

static unsigned ec_get(void) { return __atomic_fetch_or(&count, WAITERS, __ATOMIC_SEQ_CST) & ~WAITERS; }

static void ec_wait(unsigned cmp) {
  if (cmp == (__atomic_load_n(&count, __ATOMIC_SEQ_CST) & ~WAITERS)) {
    pthread_mutex_lock(&mutex);
    while (cmp == (__atomic_load_n(&count, __ATOMIC_SEQ_CST) & ~WAITERS)) pthread_cond_wait(&changed, &mutex);
    pthread_mutex_unlock(&mutex);
  }
}

static void enqueue(long data) {
  struct node *n = malloc(sizeof *n);
  __atomic_store_n(&n->next, NULL, __ATOMIC_RELAXED);
  n->data = data;
  __atomic_store_n(&head->next, n, __ATOMIC_RELEASE);
  head = n;
  ec_signal();
}

static long try_dequeue(void) {
  struct node *t = tail;
  struct node *n = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE);
  if (n == NULL) return 0;
  long data = n->data;
  free(t);
  tail = n;
  return data;
}

static long dequeue(void) {
  long data = try_dequeue();
  while (data == 0) {
    unsigned cmp = ec_get();
    data = try_dequeue();
    if (data) break;
    ec_wait(cmp);
    data = try_dequeue();
  }
  return data;
}

static void *producer(void *arg) {
  enqueue(42);
  return arg;
}

static void *consumer(void *arg) {
  assert(dequeue() == 42);
  return arg;
}

int main(void) {
  head = tail = calloc(1, sizeof(struct node)); /* the dummy node */
  pthread_t p, c;
  pthread_create(&c, NULL, consumer, NULL);
  pthread_create(&p, NULL, producer, NULL);
  pthread_join(p, NULL);
  pthread_join(c, NULL);
  free(tail);
  return 0;
}
