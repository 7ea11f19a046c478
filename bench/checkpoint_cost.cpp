// Times live checkpoints (agent/LiveCheckpoint.h) of a paused execution of
// bench_checkpoint_cost (8 threads, 4 MB of heap each), as the controller
// sees them, next to the fresh executions the fork server forks:
//
//   ctrl_checkpoint_cost BUILD/bin/bench_checkpoint_cost [REPS [MB]]
//
// MB: heap each thread touches (default 4). Prints one line per figure: the median and the minimum over REPS (default
// 50) in microseconds. Figures:
//   fresh-to-step-0   Session::run to the pause at step 0 (a spare the fork
//                     server forked in advance, released)
//   fresh-to-step-S   the same to step S, following the recorded schedule
//                     (what a checkpoint saves)
//   round-trip        a command that changes nothing (StepCommand::Go at
//                     the pause): the channel's cost inside the figures below
//   take              Session::take_checkpoint at step S
//   restore           Session::restore_checkpoint to the pause at step S
//                     (nothing paused before: the abandon is not counted)
//   abandon           killing a paused execution (reaped by the fork server)
// Not part of the test suite: the figures depend on the machine and its load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/ExitStatus.h"
#include "session/Session.h"

using namespace ctrl;
using clock_type = std::chrono::steady_clock;

namespace {

struct Samples {
  std::vector<double> us;
  void add(clock_type::time_point start) {
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
  }
  void print(const char* name) {
    std::sort(us.begin(), us.end());
    std::printf("%-16s median %9.1f us   min %9.1f us   (%zu runs)\n", name, us[us.size() / 2], us.front(), us.size());
  }
};

void expect(const ExecutionResult& r, ExecutionResult::End end, const char* what) {
  if (r.end != end) {
    std::fprintf(stderr, "ctrl_checkpoint_cost: %s ended %d (%s %s)\n", what, int(r.end),
                 std::string(r.kind_name()).c_str(), r.message.c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ctrl_checkpoint_cost BENCH_CHECKPOINT_COST [REPS [MB]]\n");
    return 2;
  }
  int reps = argc > 2 ? std::atoi(argv[2]) : 50;
  SessionConfig config;
  config.program = argv[1];
  std::string mb = argc > 3 ? argv[3] : "4";
  config.args = {"8", mb, "1000"};
  config.agent = CTRL_BENCH_AGENT;
  config.max_steps = 200000;
  config.hang_timeout = 60;
  try {
    Session session(config);
    if (session.start()) {
      std::fprintf(stderr, "ctrl_checkpoint_cost: the program ended before its threads\n");
      return 1;
    }
    uint64_t index = 1;
    ExecutionPlan record;
    record.policy = shm::TailPolicy::RoundRobin;
    ExecutionResult full = session.run(record, index++);
    expect(full, ExecutionResult::End::Complete, "the recording");
    ExecutionPlan plan;
    for (const auto& e : full.events) plan.prefix.push_back(e.thread);
    plan.policy = shm::TailPolicy::Ask;
    // Late enough that every worker has its heap, early enough that all
    // still run.
    const uint64_t step = full.events.size() / 4;
    std::printf("bench_checkpoint_cost: 8 threads, %s MB each, %zu steps, checkpoint at step %lu\n", mb.c_str(),
                full.events.size(), (unsigned long)step);

    Samples fresh0, fresh, trip, take, restore, abandon;
    ExecutionPlan at0 = plan;
    at0.pause_at = 0;
    plan.pause_at = step;
    for (int i = 0; i < reps; ++i) {
      auto t = clock_type::now();
      expect(session.run(at0, index++), ExecutionResult::End::Paused, "fresh to step 0");
      fresh0.add(t);
      session.abandon();
    }
    std::vector<shm::Event> events;
    for (int i = 0; i < reps; ++i) {
      auto t = clock_type::now();
      ExecutionResult r = session.run(plan, index++);
      fresh.add(t);
      expect(r, ExecutionResult::End::Paused, "fresh to step S");
      events = r.events;
      t = clock_type::now();
      expect(session.resume(shm::StepCommand::Go), ExecutionResult::End::Paused, "a round trip");
      trip.add(t);
      t = clock_type::now();
      session.abandon();
      abandon.add(t);
    }
    expect(session.run(plan, index++), ExecutionResult::End::Paused, "fresh to step S");
    std::string error;
    std::vector<int> slots;
    for (int i = 0; i < std::min(reps, int(shm::kMaxCheckpoints)); ++i) {
      auto t = clock_type::now();
      int slot = session.take_checkpoint(error);
      take.add(t);
      if (slot < 0) {
        std::fprintf(stderr, "ctrl_checkpoint_cost: no checkpoint: %s\n", error.c_str());
        return 1;
      }
      slots.push_back(slot);
    }
    for (size_t i = 1; i < slots.size(); ++i) session.drop_checkpoint(slots[i]);
    session.abandon();
    for (int i = 0; i < reps; ++i) {
      auto t = clock_type::now();
      expect(session.restore_checkpoint(slots[0], plan, index++, events), ExecutionResult::End::Paused, "a restore");
      restore.add(t);
      session.abandon();
    }
    session.drop_checkpoint(slots[0]);
    fresh0.print("fresh-to-step-0");
    fresh.print("fresh-to-step-S");
    trip.print("round-trip");
    take.print("take");
    restore.print("restore");
    abandon.print("abandon");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctrl_checkpoint_cost: %s\n", e.what());
    return 3;
  }
  return 0;
}
