// Threads that end, are joined, and are followed by more threads, two rounds
// per execution, plus a detached one: what a program sees of its threads must
// not depend on whether ctrl recycles them (agent/ThreadPool.h) or creates
// them anew, nor on the execution before.
//  - a new thread's thread-locals start from their initialisers;
//  - a thread_local object's destructor and a pthread key's destructor run
//    once per ended thread, before its joiner goes on;
//  - pthread_join returns the start routine's value;
//  - each thread does an atomic read-modify-write on an object on its own
//    stack: its address is in the event, so a trace replayed in another mode
//    diverges if the thread's stack moved.
// With the argument "bug", the workers also update a plain counter in two
// steps with a yield between: a lost update, found by DPOR, whose trace must
// replay whichever mode found it.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static std::atomic<int> destructors{0};
struct Counted {
  int value = 5;
  ~Counted() { destructors.fetch_add(1); }
};
static thread_local Counted counted;
static thread_local int tl = 11;
static pthread_key_t key;
static std::atomic<long> total{0};
static std::atomic<int> detached_done{0};
static bool bug;
static int plain;

static void key_destructor(void* value) {
  assert(value != nullptr);
  destructors.fetch_add(1);
}

static void* worker(void* arg) {
  long id = reinterpret_cast<long>(arg);
  assert(tl == 11);
  tl = 99;
  assert(counted.value == 5);
  counted.value = 6;
  pthread_setspecific(key, arg);
  std::atomic<long> local{id};  // on this thread's stack
  local.fetch_add(1);
  total.fetch_add(local.load());
  if (bug) {
    int seen = plain;
    sched_yield();
    plain = seen + 1;
  }
  return reinterpret_cast<void*>(id * 10);
}

static void* detached(void*) {
  assert(tl == 11);
  tl = 1;
  detached_done.store(1);
  return nullptr;
}

int main(int argc, char** argv) {
  bug = argc > 1 && strcmp(argv[1], "bug") == 0;
  pthread_key_create(&key, key_destructor);
  long expected = 0;
  for (int round = 0; round < 2; ++round) {
    pthread_t threads[2];
    for (long i = 0; i < 2; ++i) {
      long id = round * 2 + i + 1;
      expected += id + 1;
      pthread_create(&threads[i], nullptr, worker, reinterpret_cast<void*>(id));
    }
    for (long i = 0; i < 2; ++i) {
      void* result = nullptr;
      pthread_join(threads[i], &result);
      assert(reinterpret_cast<long>(result) == (round * 2 + i + 1) * 10);
    }
    // Two destructors per joined thread, all run by now.
    assert(destructors.load() == 4 * (round + 1));
  }
  pthread_t d;
  pthread_create(&d, nullptr, detached, nullptr);
  pthread_detach(d);
  while (detached_done.load() == 0) sched_yield();
  // Heap allocated after the threads ended: where it lands must not depend
  // on how they ended.
  auto* after = new std::atomic<long>(0);
  after->fetch_add(total.load());
  assert(total.load() == expected);
  if (bug) assert(plain == 4);
  std::printf("%ld\n", after->load());
  delete after;
  return 0;
}
