// A libuv program for the realworld suite: uv_queue_work hands six jobs to
// libuv's thread pool (two threads); each job sums a range of numbers in a
// pool thread and its after-work callback adds the result on the loop
// thread. The printed total does not depend on the schedule.
// Usage: uv_work
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

enum { kJobs = 6 };

struct job {
  uv_work_t req;
  long from, to, sum;
};

static long total;
static int finished;

static void work(uv_work_t* req) {
  struct job* j = req->data;
  for (long i = j->from; i < j->to; ++i) j->sum += i;
}

static void after_work(uv_work_t* req, int status) {
  struct job* j = req->data;
  if (status == 0) total += j->sum;
  ++finished;
}

int main(void) {
  setenv("UV_THREADPOOL_SIZE", "2", 1);  // read when the pool starts
  uv_loop_t* loop = uv_default_loop();
  struct job jobs[kJobs];
  for (int i = 0; i < kJobs; ++i) {
    jobs[i] = (struct job){.from = i * 100, .to = (i + 1) * 100};
    jobs[i].req.data = &jobs[i];
    uv_queue_work(loop, &jobs[i].req, work, after_work);
  }
  uv_run(loop, UV_RUN_DEFAULT);
  printf("jobs %d total %ld\n", finished, total);
  return uv_loop_close(loop) != 0;
}
