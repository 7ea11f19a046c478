/* Every execution must start from the state the program had when it created
 * its first thread, whether ctrl forks a process per execution or rolls one
 * process back in place: globals, the heap, thread-locals, a file offset, the
 * descriptors (and none of ctrl's visible), mappings, a signal disposition,
 * the working directory and the umask. Each execution checks all of that first, then changes all of it.
 * Two workers take a mutex in turn: 2 executions under DPOR, correct.
 *
 * argv[1] names how the working directory is changed (a runner puts it back
 * only after an execution that may have changed it, Rollback.h
 * kWorkingDirectory): chdir (default), fchdir, syscall (libc's syscall()),
 * fts (a walk left inside a directory) or nftw (FTW_CHDIR, left with
 * longjmp from inside a directory). */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int global = 1;
static char* heap;
static __thread int tls = 3;
static int file_fd, next_fd;
static char* mapped;
static char start_dir[4096];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void handler(int sig) { (void)sig; }

static jmp_buf walked;

static int walk_step(const char* path, const struct stat* st, int type, struct FTW* at) {
  (void)path, (void)st, (void)type;
  if (at->level == 1) longjmp(walked, 1); /* inside "walk" */
  return 0;
}

/* Leaves the working directory elsewhere, the way `how` says. */
static void move_away(const char* how) {
  if (strcmp(how, "fchdir") == 0) {
    int root = open("/", O_RDONLY | O_DIRECTORY);
    assert(root >= 0 && fchdir(root) == 0);
    close(root);
  } else if (strcmp(how, "syscall") == 0) {
    assert(syscall(SYS_chdir, "/") == 0);
  } else if (strcmp(how, "fts") == 0) {
    char* paths[] = {"walk", NULL};
    FTS* walk = fts_open(paths, FTS_PHYSICAL, NULL);
    assert(walk);
    for (FTSENT* e; (e = fts_read(walk)) && e->fts_level < 1;) {
    } /* at walk/sub: fts is inside walk (never closed) */
  } else if (strcmp(how, "nftw") == 0) {
    if (!setjmp(walked)) nftw("walk", walk_step, 4, FTW_CHDIR);
  } else {
    assert(chdir("/") == 0);
  }
  char dir[4096];
  assert(getcwd(dir, sizeof dir) && strcmp(dir, start_dir) != 0);
}

static void* worker(void* arg) {
  (void)arg;
  assert(tls == 3); /* a new thread's thread-local starts from its initialiser */
  tls = 40;
  pthread_mutex_lock(&lock);
  counter++;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "chdir";
  /* A directory with one inside, for the walks. */
  assert((mkdir("walk", 0755) == 0 || errno == EEXIST) && (mkdir("walk/sub", 0755) == 0 || errno == EEXIST));
  heap = malloc(64);
  memset(heap, 7, 64);
  mapped = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(mapped != MAP_FAILED);
  mapped[0] = 5;
  char path[] = "/tmp/ctrl_rollback_XXXXXX";
  file_fd = mkstemp(path);
  assert(file_fd >= 0);
  unlink(path);
  assert(write(file_fd, "abcdef", 6) == 6);
  assert(lseek(file_fd, 0, SEEK_SET) == 0);
  next_fd = dup(0);
  close(next_fd); /* the lowest free descriptor */
  assert(getcwd(start_dir, sizeof start_dir));
  umask(022);
  tls = 3;

  pthread_t a, b;
  assert(pthread_create(&a, NULL, worker, NULL) == 0);
  /* The execution starts at the first thread: check the checkpoint's state. */
  assert(global == 1);
  for (int i = 0; i < 64; i++) assert(heap[i] == 7);
  assert(tls == 3);
  assert(mapped[0] == 5);
  char c;
  assert(read(file_fd, &c, 1) == 1 && c == 'a'); /* the offset is back at 0 */
  int fd = open("/dev/null", O_RDONLY);
  assert(fd == next_fd); /* no descriptor of an earlier execution is left */
  /* What ctrl keeps open in the process (its channel at 900, a runner's
   * copies of these descriptors and its own) is not the program's: none is
   * open to it, in place or not. */
  for (int d = 900; d < 1100; d++) assert(fcntl(d, F_GETFD) == -1 && errno == EBADF);
  struct sigaction sa;
  assert(sigaction(SIGUSR1, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL);
  char dir[4096];
  assert(getcwd(dir, sizeof dir) && strcmp(dir, start_dir) == 0);
  mode_t old = umask(077);
  assert(old == 022);

  /* Now change all of it. */
  global = 2;
  memset(heap, 9, 64);
  tls = 4;
  mapped[0] = 6;
  char* more = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(more != MAP_FAILED);
  more[0] = 1;
  void* big = malloc(1 << 20); /* a mapping of its own (malloc's threshold) */
  memset(big, 1, 4096);
  signal(SIGUSR1, handler);
  move_away(how);

  assert(pthread_create(&b, NULL, worker, NULL) == 0);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert(counter == 2);
  printf("ok\n");
  return 0;
}
