/* Bug: double-checked initialisation that publishes the object before
 * filling it in. Readers wait with sched_yield until the main thread says
 * go, then get the object: the first to find it missing takes the mutex,
 * creates it, publishes the pointer, then sets its field; another reader
 * that finds the pointer already set uses the field at once.
 * Depth 1: the second reader between the publication and the field store.
 * Retry style: sched_yield polling on a start flag (local progress). */
#include "bug_common.h"

struct object {
  long value;
};
static struct object storage;
static struct object* instance;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long go;

static struct object* get(void) {
  struct object* p = __atomic_load_n(&instance, __ATOMIC_ACQUIRE);
  if (p) return p;
  pthread_mutex_lock(&m);
  p = __atomic_load_n(&instance, __ATOMIC_ACQUIRE);
  if (!p) {
    p = &storage;
    __atomic_store_n(&instance, p, __ATOMIC_RELEASE); /* BUG: published first */
    ST(p->value, 7);
  }
  pthread_mutex_unlock(&m);
  return p;
}

static void* reader(void* arg) {
  (void)arg;
  long waits = 0;
  while (!LD(go)) {
    sched_yield();
    waits++;
  }
  struct object* o = get();
  assert(LD(o->value) == 7);
  return (void*)waits;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, reader, NULL);
  pthread_create(&b, NULL, reader, NULL);
  ST(go, 1);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
