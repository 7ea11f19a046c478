/* Correct: forks a child that prints and exits; once the child is gone the
 * parent starts two threads that share a mutex-protected counter. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void *work(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    printf("child %d says hello\n", (int)getpid());
    exit(0);
  }
  int status = 0;
  pid_t waited = waitpid(pid, &status, 0);
  assert(waited == pid);
  assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  pthread_t t1, t2;
  pthread_create(&t1, NULL, work, NULL);
  pthread_create(&t2, NULL, work, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("counter = %d\n", counter);
  assert(counter == 2);
  return 0;
}
