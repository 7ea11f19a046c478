// Globals of every kind VariablePrinter prints, for VariablePrinter_test.
// Prints "MAIN_TP WORKER_TP &tls_counter(main) &tls_counter(worker)
// &lib_tls(main) &lib_tls(worker)" in hex on one line, then stops itself
// with SIGSTOP while its worker thread waits.
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum color { RED, GREEN = 5, BLUE };
struct inner {
  int x;
  short y;
};
typedef struct outer {
  int a;
  struct inner in;
  char name[8];
  double ratio;
  struct inner* next;
  unsigned flag : 3;
  int neg : 5;
} outer_t;
union both {
  int i;
  float f;
};

int counter = 2;
unsigned char small = 200;
long long big = -1234567890123LL;
double ratio = 3.14;
float half = 0.5f;
bool yes = true;
char letter = 'A';
int* counter_ptr = &counter;
int* null_ptr = 0;
const char* greeting = "hello, world";
int numbers[3] = {1, 2, 3};
int zeros[20];
int matrix[2][3] = {{1, 2, 3}, {4, 5, 6}};
char buffer[16] = "hi";
enum color color = GREEN;
enum color odd_color = (enum color)7;
outer_t outer = {.a = 1, .in = {2, -3}, .name = "abc", .ratio = 0.25, .next = &outer.in, .flag = 5, .neg = -2};
union both both = {.i = 0x3f800000};
volatile const int qualified = 7;
_Atomic int atomic_counter = 9;
int big_array[300];
__thread int tls_counter = 11;
__thread int tls_other;
// Makes the block's size (8-aligned) not a multiple of its alignment, so a
// printer that ignores the rounding of the static TLS offset is caught.
__thread long long tls_wide = 5;
__thread char tls_flag = 'x';
__thread char tls_last;
static int file_static = 42;

extern __thread int lib_tls;
extern int lib_global;
int* lib_tls_address(void);

int* bump(void) {
  static int calls = 5;
  calls++;
  return &calls;
}

int* (*bump_ptr)(void) = bump;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ready;
static uintptr_t worker_tls, worker_lib_tls;

static void* worker(void* arg) {
  (void)arg;
  tls_counter = 22;
  lib_tls = 44;
  pthread_mutex_lock(&lock);
  worker_tls = (uintptr_t)&tls_counter;
  worker_lib_tls = (uintptr_t)lib_tls_address();
  ready = 1;
  pthread_cond_broadcast(&changed);
  while (ready != 2) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  for (int i = 0; i < 300; ++i) big_array[i] = i;
  bump();
  tls_other = -5;
  tls_last = 'z';
  lib_tls = 35;
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_mutex_lock(&lock);
  while (ready != 1) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  printf("%lx %lx %lx %lx %lx %lx\n", (unsigned long)pthread_self(), (unsigned long)thread,
         (unsigned long)(uintptr_t)&tls_counter, (unsigned long)worker_tls, (unsigned long)(uintptr_t)lib_tls_address(),
         (unsigned long)worker_lib_tls);
  fflush(stdout);
  raise(SIGSTOP);
  pthread_mutex_lock(&lock);
  ready = 2;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  pthread_join(thread, NULL);
  return file_static + lib_global + qualified - 126;
}
