// Live checkpoints of a paused multithreaded execution (agent/LiveCheckpoint.h,
// controller/session/LiveCheckpoints.h), on samples/checkpoint_threads with the real
// agent: a continuation from a restored checkpoint must be the original
// continuation, event for event, with the same exit status and output.
#include "session/LiveCheckpoints.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "binary/Backtracer.h"
#include "sites/Instrumentation.h"
#include "session/Session.h"
#include "binary/Symbolizer.h"
#include "session/Tracer.h"

namespace ctrl {
namespace {

namespace fs = std::filesystem;

// Exists and is not a zombie.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

size_t tasks(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) ++n;
  return n;
}

struct Continuation {
  std::vector<shm::Event> events;
  int exit_status = -1;
  std::string output;
};

class LiveCheckpointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ctrl-live-checkpoints-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    output_ = (dir_ / "out.txt").string();
    SessionConfig config;
    config.program = std::string(CTRL_TEST_BIN_DIR) + "/checkpoint_threads";
    config.args = {"4", "3", output_};
    config.agent = CTRL_TEST_AGENT;
    config.max_steps = 100000;
    config.hang_timeout = 20;
    session_ = std::make_unique<Session>(config);
    ASSERT_FALSE(session_->start().has_value());
  }
  void TearDown() override {
    session_.reset();
    fs::remove_all(dir_);
  }

  std::string read_output() const {
    std::ifstream in(output_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  Continuation finish(ExecutionResult r) {
    Continuation run;
    run.events = r.events;
    run.exit_status = r.exit_status;
    EXPECT_EQ(r.end, ExecutionResult::End::Complete) << r.kind_name() << ": " << r.message;
    run.output = read_output();
    return run;
  }
  static std::vector<uint32_t> schedule_of(const std::vector<shm::Event>& events) {
    std::vector<uint32_t> s;
    for (const auto& e : events) s.push_back(e.thread);
    return s;
  }
  // Events from `from` on, field by field.
  static void expect_same(const Continuation& a, const Continuation& b, uint64_t from) {
    ASSERT_EQ(a.events.size(), b.events.size());
    for (uint64_t i = from; i < a.events.size(); ++i) {
      const shm::Event &x = a.events[i], &y = b.events[i];
      EXPECT_TRUE(x.step == y.step && x.thread == y.thread && x.kind == y.kind && x.addr == y.addr &&
                  x.site == y.site && x.value_read == y.value_read && x.value_written == y.value_written &&
                  x.aux == y.aux && x.flags == y.flags && x.enabled == y.enabled)
          << "step " << i << ": T" << x.thread << " " << op_name(OpKind(x.kind)) << " vs T" << y.thread << " "
          << op_name(OpKind(y.kind));
    }
    EXPECT_EQ(a.exit_status, b.exit_status);
    EXPECT_EQ(a.output, b.output);
  }

  fs::path dir_;
  std::string output_;
  std::unique_ptr<Session> session_;
};

TEST_F(LiveCheckpointsTest, RestoredTwiceContinuesAsTheOriginal) {
  // The reference: round-robin switches threads at every step, so the
  // checkpoint falls while every worker holds its own error-checking mutex.
  ExecutionPlan reference_plan;
  reference_plan.policy = shm::TailPolicy::RoundRobin;
  Continuation reference = finish(session_->run(reference_plan, 1));
  ASSERT_GT(reference.events.size(), 60u);
  const uint64_t at = reference.events.size() / 2;

  ExecutionPlan plan;
  plan.prefix = schedule_of(reference.events);
  plan.policy = shm::TailPolicy::Ask;
  plan.pause_at = at;
  ExecutionResult paused = session_->run(plan, 2);
  ASSERT_EQ(paused.end, ExecutionResult::End::Paused);
  ASSERT_EQ(paused.events.size(), at);
  pid_t original_pid = session_->execution_pid();
  // The main thread and every worker are alive at the pause, and a worker
  // decides: the checkpoint process is a copy of it, so the main thread is
  // one of the threads a restore recreates. The runner also has the
  // recycled threads no worker took (agent/ThreadPool.h: 8, 4 taken),
  // which a restore recreates only when their slot is taken.
  ASSERT_EQ(tasks(original_pid), 5u + 4u);
  EXPECT_NE(session_->region().header().current, 0u);

  LiveCheckpoints checkpoints(*session_);
  const LiveCheckpoints::Checkpoint& c = checkpoints.take(paused.events);
  EXPECT_EQ(c.step, at);
  int id = c.id;
  // The original goes on from its pause.
  Continuation original = finish(session_->resume(shm::StepCommand::Finish));
  expect_same(original, reference, 0);

  for (int round = 0; round < 2; ++round) {
    fs::remove(output_);
    ExecutionPlan again = plan;
    ExecutionResult restored = checkpoints.restore(id, again, 3 + round);
    ASSERT_EQ(restored.end, ExecutionResult::End::Paused) << restored.kind_name() << ": " << restored.message;
    ASSERT_EQ(restored.events.size(), at);
    EXPECT_NE(session_->execution_pid(), original_pid);
    EXPECT_EQ(tasks(session_->execution_pid()), 5u);
    EXPECT_EQ(session_->region().header().ask_step, at);
    if (round == 0) {
      // The recreated threads unwind as the originals did: each worker
      // through its start routine.
      session_->inspect();
      int workers = 0;
      for (pid_t t : threads_of(session_->execution_pid())) {
        bool in_worker = false;
        for (uint64_t pc : session_->backtracer().unwind(t))
          in_worker |= session_->symbolizer().function_name(pc & ~Backtracer::kExactIp) == "worker";
        workers += in_worker;
      }
      EXPECT_EQ(workers, 4);
    }
    Continuation continued = finish(session_->resume(shm::StepCommand::Finish));
    expect_same(continued, reference, 0);
  }

  // A checkpoint of a restored execution, later on: restored, it goes on
  // as the original too.
  ExecutionResult restored = checkpoints.restore(id, plan, 5);
  ASSERT_EQ(restored.end, ExecutionResult::End::Paused);
  const uint64_t later = at + 17;
  session_->region().header().pause_at = later;
  ExecutionResult moved = session_->resume(shm::StepCommand::Go);
  ASSERT_EQ(moved.end, ExecutionResult::End::Paused);
  ASSERT_EQ(moved.events.size(), later);
  int nested = checkpoints.take(moved.events).id;
  expect_same(finish(session_->resume(shm::StepCommand::Finish)), reference, 0);
  fs::remove(output_);
  ExecutionPlan from_later = plan;
  from_later.pause_at = later;
  ExecutionResult again = checkpoints.restore(nested, from_later, 6);
  ASSERT_EQ(again.end, ExecutionResult::End::Paused) << again.kind_name() << ": " << again.message;
  ASSERT_EQ(again.events.size(), later);
  expect_same(finish(session_->resume(shm::StepCommand::Finish)), reference, 0);

  EXPECT_EQ(checkpoints.nearest(plan.prefix, later + 3)->id, nested);
  EXPECT_EQ(checkpoints.nearest(plan.prefix, later - 1)->id, id);
  EXPECT_EQ(checkpoints.nearest(plan.prefix, at - 1), nullptr);
  checkpoints.drop(id);
  checkpoints.drop(nested);
  EXPECT_EQ(checkpoints.all().size(), 0u);
}

TEST_F(LiveCheckpointsTest, DecidedByAThreadThatIsExiting) {
  ExecutionPlan reference_plan;
  reference_plan.policy = shm::TailPolicy::RoundRobin;
  Continuation reference = finish(session_->run(reference_plan, 1));
  // The decision after a worker's exit is that worker's: the checkpoint
  // process is a copy of a thread on its way out, which becomes the
  // restored process's leader and then exits.
  uint64_t at = 0;
  while (at < reference.events.size() &&
         !(OpKind(reference.events[at].kind) == OpKind::ThreadExit && reference.events[at].thread != 0))
    ++at;
  ASSERT_LT(at, reference.events.size());
  ++at;
  ExecutionPlan plan;
  plan.prefix = schedule_of(reference.events);
  plan.policy = shm::TailPolicy::Ask;
  plan.pause_at = at;
  ExecutionResult paused = session_->run(plan, 2);
  ASSERT_EQ(paused.end, ExecutionResult::End::Paused);
  EXPECT_EQ(session_->region().header().current, reference.events[at - 1].thread);
  LiveCheckpoints checkpoints(*session_);
  int id = checkpoints.take(paused.events).id;
  session_->abandon();
  for (int round = 0; round < 2; ++round) {
    fs::remove(output_);
    ExecutionResult restored = checkpoints.restore(id, plan, 3 + round);
    ASSERT_EQ(restored.end, ExecutionResult::End::Paused) << restored.kind_name() << ": " << restored.message;
    expect_same(finish(session_->resume(shm::StepCommand::Finish)), reference, 0);
  }
}

TEST_F(LiveCheckpointsTest, AutomaticCheckpointOfARunningExecution) {
  ExecutionPlan reference_plan;
  reference_plan.policy = shm::TailPolicy::RoundRobin;
  Continuation reference = finish(session_->run(reference_plan, 1));
  const uint64_t at = reference.events.size() / 3;

  // Not paused: the plan asks for a checkpoint on the way.
  ExecutionPlan plan;
  plan.prefix = schedule_of(reference.events);
  plan.checkpoint_at = at;
  Continuation original = finish(session_->run(plan, 2));
  expect_same(original, reference, 0);
  LiveCheckpoints checkpoints(*session_);
  const LiveCheckpoints::Checkpoint* c = checkpoints.adopt(original.events, at);
  ASSERT_NE(c, nullptr) << session_->region().header().checkpoint_error;
  EXPECT_EQ(c->step, at);

  // A fresh execution in between overwrites the region's events.
  ExecutionPlan other;
  other.policy = shm::TailPolicy::Sticky;
  finish(session_->run(other, 3));

  fs::remove(output_);
  ExecutionPlan rest;
  rest.prefix = plan.prefix;
  Continuation continued = finish(checkpoints.restore(c->id, rest, 4));
  expect_same(continued, reference, 0);
}

TEST_F(LiveCheckpointsTest, NoProcessLeftAfterTheSession) {
  ExecutionPlan plan;
  plan.policy = shm::TailPolicy::Ask;
  plan.pause_at = 10;
  ExecutionResult paused = session_->run(plan, 1);
  ASSERT_EQ(paused.end, ExecutionResult::End::Paused);
  std::vector<pid_t> pids;
  for (int i = 0; i < 2; ++i) {
    std::string error;
    int slot = session_->take_checkpoint(error);
    ASSERT_GE(slot, 0) << error;
    pids.push_back(session_->region().header().checkpoints[slot].pid);
  }
  for (pid_t p : pids) EXPECT_TRUE(alive(p));
  session_.reset();
  for (pid_t p : pids) {
    for (int i = 0; i < 200 && alive(p); ++i) usleep(10000);
    EXPECT_FALSE(alive(p)) << "checkpoint process " << p << " outlived its session";
  }
}

// Under x86-TSO (and PSO) a store a thread has buffered but not flushed at
// the checkpoint (agent memory: the buffers and the bytes put back when the
// thread was switched out) is flushed alike after a restore.
class LiveCheckpointsBuffers : public ::testing::TestWithParam<shm::MemoryModel> {};

TEST_P(LiveCheckpointsBuffers, BufferedStoreAcrossARestore) {
  std::string program = std::string(CTRL_TEST_BIN_DIR) + "/store_buffering";
  Instrumentation instrumentation(program, InstrumentationOptions{});
  SessionConfig config;
  config.program = program;
  config.args = {"relaxed"};
  config.agent = CTRL_TEST_AGENT;
  config.model = GetParam();
  config.sites_fd = instrumentation.fd();
  config.hang_timeout = 20;
  Session session(config);
  ASSERT_FALSE(session.start().has_value());
  ExecutionPlan reference_plan;
  reference_plan.policy = shm::TailPolicy::RoundRobin;
  ExecutionResult reference = session.run(reference_plan, 1);
  ASSERT_TRUE(reference.end == ExecutionResult::End::Complete || reference.end == ExecutionResult::End::Bug);
  // Just after the first buffered store: its thread's buffer holds it.
  uint64_t at = 0;
  while (at < reference.events.size() && !(reference.events[at].flags & shm::kBuffered)) ++at;
  ASSERT_LT(at, reference.events.size());
  ++at;
  ExecutionPlan plan;
  for (const auto& e : reference.events) plan.prefix.push_back(e.thread);
  plan.policy = shm::TailPolicy::Ask;
  plan.pause_at = at;
  ExecutionResult paused = session.run(plan, 2);
  ASSERT_EQ(paused.end, ExecutionResult::End::Paused);
  LiveCheckpoints checkpoints(session);
  int id = checkpoints.take(paused.events).id;
  session.abandon();
  for (int round = 0; round < 2; ++round) {
    ExecutionResult restored = checkpoints.restore(id, plan, 3 + round);
    ASSERT_EQ(restored.end, ExecutionResult::End::Paused);
    ExecutionResult r = session.resume(shm::StepCommand::Finish);
    EXPECT_EQ(r.end, reference.end);
    EXPECT_EQ(r.kind, reference.kind);
    ASSERT_EQ(r.events.size(), reference.events.size());
    for (size_t i = 0; i < r.events.size(); ++i) {
      const shm::Event &x = r.events[i], &y = reference.events[i];
      EXPECT_TRUE(x.thread == y.thread && x.kind == y.kind && x.addr == y.addr && x.site == y.site &&
                  x.value_read == y.value_read && x.value_written == y.value_written && x.flags == y.flags &&
                  x.aux == y.aux)
          << "step " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, LiveCheckpointsBuffers,
                         ::testing::Values(shm::MemoryModel::TSO, shm::MemoryModel::PSO));

// At every step of a program whose reader thread waits in read(2) for a
// pipe its writer thread fills (a probed kernel wait: agent/KernelWaits.h),
// a restored checkpoint goes on as the original did. The pipe is shared
// with the checkpoint process: at the steps where it holds "hello", the
// original continuation empties it, and only its contents recorded at the
// checkpoint and written back by the restore let the restored reader read
// (without them it blocked in the kernel for good).
struct Program {
  const char* name;
  std::vector<std::string> args;
};
class LiveCheckpointsKernelWaits : public ::testing::TestWithParam<Program> {};

TEST_P(LiveCheckpointsKernelWaits, EveryStep) {
  SessionConfig config;
  config.program = std::string(CTRL_TEST_BIN_DIR) + "/" + GetParam().name;
  config.args = GetParam().args;
  config.agent = CTRL_TEST_AGENT;
  config.hang_timeout = 20;
  Session session(config);
  ASSERT_FALSE(session.start().has_value());
  ExecutionPlan reference_plan;
  reference_plan.policy = shm::TailPolicy::RoundRobin;
  ExecutionResult reference = session.run(reference_plan, 1);
  ASSERT_EQ(reference.end, ExecutionResult::End::Complete);
  bool waited = false;
  for (const auto& e : reference.events)
    waited |= OpKind(e.kind) == OpKind::FdWait || OpKind(e.kind) == OpKind::SignalWait;
  ASSERT_TRUE(waited);
  ExecutionPlan plan;
  for (const auto& e : reference.events) plan.prefix.push_back(e.thread);
  plan.policy = shm::TailPolicy::Ask;
  uint64_t index = 2;
  for (uint64_t at = 1; at < reference.events.size(); ++at) {
    plan.pause_at = at;
    ExecutionResult paused = session.run(plan, index++);
    ASSERT_EQ(paused.end, ExecutionResult::End::Paused);
    LiveCheckpoints checkpoints(session);
    int id = checkpoints.take(paused.events).id;
    ExecutionResult original = session.resume(shm::StepCommand::Finish);
    ExecutionResult restored = checkpoints.restore(id, plan, index++);
    ASSERT_EQ(restored.end, ExecutionResult::End::Paused) << "at step " << at;
    ExecutionResult continued = session.resume(shm::StepCommand::Finish);
    for (const ExecutionResult* r : {&original, &continued}) {
      EXPECT_EQ(r->end, ExecutionResult::End::Complete)
          << (r == &original ? "original" : "restored") << " at step " << at << ": " << r->message;
      ASSERT_EQ(r->events.size(), reference.events.size()) << "at step " << at;
      for (size_t i = 0; i < r->events.size(); ++i)
        EXPECT_TRUE(r->events[i].thread == reference.events[i].thread &&
                    r->events[i].kind == reference.events[i].kind &&
                    r->events[i].value_read == reference.events[i].value_read)
            << "checkpoint at step " << at << ", step " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, LiveCheckpointsKernelWaits,
                         ::testing::Values(Program{"pipe_read", {}}, Program{"signal_wait", {}},
                                           Program{"signal_wait", {"suspend"}}));

// A controller killed outright leaves no checkpoint or restored process:
// they die with the fork server, which dies with the controller.
TEST(LiveCheckpointsKill, NothingOutlivesAKilledController) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t controller = fork();
  ASSERT_GE(controller, 0);
  if (controller == 0) {
    close(fds[0]);
    SessionConfig config;
    config.program = std::string(CTRL_TEST_BIN_DIR) + "/checkpoint_threads";
    config.args = {"4", "3"};
    config.agent = CTRL_TEST_AGENT;
    Session session(config);
    if (session.start()) _exit(1);
    ExecutionPlan plan;
    plan.policy = shm::TailPolicy::Ask;
    plan.pause_at = 12;
    ExecutionResult paused = session.run(plan, 1);
    if (paused.end != ExecutionResult::End::Paused) _exit(1);
    std::string error;
    int slot = session.take_checkpoint(error);
    if (slot < 0) _exit(1);
    pid_t pids[3] = {session.region().header().checkpoints[slot].pid, 0, 0};
    session.restore_checkpoint(slot, plan, 2, paused.events);
    pids[1] = session.execution_pid();
    pids[2] = getpid();
    if (write(fds[1], pids, sizeof pids) != sizeof pids) _exit(1);
    pause();
    _exit(0);
  }
  close(fds[1]);
  pid_t pids[3] = {};
  ASSERT_EQ(read(fds[0], pids, sizeof pids), ssize_t(sizeof pids));
  close(fds[0]);
  EXPECT_TRUE(alive(pids[0]));
  EXPECT_TRUE(alive(pids[1]));
  kill(controller, SIGKILL);
  waitpid(controller, nullptr, 0);
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 200 && alive(pids[k]); ++i) usleep(10000);
    EXPECT_FALSE(alive(pids[k])) << (k == 0 ? "the checkpoint process" : "the restored process") << " outlived ctrl";
  }
}

}  // namespace
}  // namespace ctrl
