// A liburcu program for the realworld suite: two reader threads read a
// shared configuration under rcu_read_lock while the main thread publishes
// new versions with rcu_assign_pointer, frees the old ones after
// synchronize_rcu and, for the last ones, through call_rcu. Every version
// a reader sees is consistent (its two fields agree); the printed totals
// do not depend on the schedule.
// Usage: urcu_config
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <urcu.h>

struct config {
  long version;
  long twice;  // always 2 * version
  struct rcu_head rcu;
};

static struct config* current;
static long bad_reads;

enum { kReads = 20, kVersions = 6 };

static void* reader(void* arg) {
  long* seen = arg;
  rcu_register_thread();
  for (int i = 0; i < kReads; ++i) {
    rcu_read_lock();
    struct config* c = rcu_dereference(current);
    if (c->twice != 2 * c->version) __atomic_add_fetch(&bad_reads, 1, __ATOMIC_RELAXED);
    if (c->version > *seen) *seen = c->version;
    rcu_read_unlock();
  }
  rcu_unregister_thread();
  return NULL;
}

static void free_config(struct rcu_head* head) { free(caa_container_of(head, struct config, rcu)); }

static struct config* make_config(long version) {
  struct config* c = malloc(sizeof *c);
  c->version = version;
  c->twice = 2 * version;
  return c;
}

int main(void) {
  rcu_register_thread();
  rcu_assign_pointer(current, make_config(0));
  pthread_t t[2];
  long seen[2] = {0, 0};
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, reader, &seen[i]);
  for (long v = 1; v <= kVersions; ++v) {
    struct config* old = rcu_xchg_pointer(&current, make_config(v));
    if (v <= kVersions / 2) {
      synchronize_rcu();
      free(old);
    } else {
      call_rcu(&old->rcu, free_config);
    }
  }
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  rcu_barrier();  // every call_rcu callback has run
  printf("versions %d bad reads %ld last %ld\n", kVersions, bad_reads, current->version);
  free(current);
  rcu_unregister_thread();
  return bad_reads != 0;
}
