#include "parallel/RankWorker.h"

#include <fmt/format.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "cli/ExitStatus.h"
#include "cli/FailOnExit.h"
#include "exploration/HelperSession.h"
#include "parallel/WorkCodec.h"
#include "session/Tracer.h"
#include "sites/Instrumentation.h"
#include "work.pb.h"

namespace ctrl {

namespace {

using clock = std::chrono::steady_clock;

class Exploration {
 public:
  Exploration(RankChannel& channel, unsigned jobs, const std::string& agent, const proto::Exploration& x)
      : channel_(channel), jobs_(jobs), x_(x) {
    config_.program = x.program();
    config_.args.assign(x.args().begin(), x.args().end());
    config_.env.assign(x.env().begin(), x.env().end());
    config_.cwd = x.cwd();
    config_.agent = agent;
    config_.max_steps = x.max_steps();
    config_.hang_timeout = x.hang_timeout();
    config_.model = shm::MemoryModel(x.model());
    config_.fail_on_exit = parse_fail_on_exit(x.fail_on_exit());
    config_.in_place = x.in_place();
    config_.clock_realtime_ns = x.clock_realtime_ns();
    config_.clock_monotonic_ns = x.clock_monotonic_ns();
    config_.own_memory = x.own_memory();
    config_.shared = pod_vector<shm::Header::Range>(x.shared());
    // Its sessions float over this machine's CPUs: no explorer session here
    // to place them after.
    config_.runner_cpu = -1;
    config_.spread = false;
    instrumentation_ = std::make_unique<Instrumentation>(
        config_.program, InstrumentationOptions{x.sites(), {x.instrument().begin(), x.instrument().end()}});
    config_.sites_fd = instrumentation_->fd();
    expected_ = pod_vector<shm::Signature>(x.expected());
    first_ = decode_plan(x.first_plan());
    first_result_ = decode_result(x.first_result());
    idle_.assign(jobs, 0);
    life_.assign(jobs, 0);
  }

  // Until End: runs the plans rank 0 hands out.
  void run() {
    start_helper_threads(threads_, jobs_, [this](size_t k) { session(k); });
    bool wanted = false;  // a Want not answered yet
    bool said_failed = false;
    for (;;) {
      bool busy = false;
      while (auto m = channel_.poll()) {
        busy = true;
        if (m->kind == RankMessage::End) return finish();
        if (m->kind == RankMessage::Work) {
          proto::WorkItem item;
          proto::SeedRange seeds;
          if (!item.ParseFromString(m->body) || item.kind() != "seed-range" || !seeds.ParseFromString(item.body()))
            throw InternalError("--mpi: rank 0 sent an unreadable work item");
          std::lock_guard lock(mutex_);
          for (int k = 0; k < seeds.plans_size(); ++k)
            queue_.emplace_back(seeds.first() + uint64_t(k), decode_plan(seeds.plans(k)));
          wanted = false;
          changed_.notify_all();
        } else if (m->kind == RankMessage::Yield) {
          proto::Returned back;
          std::lock_guard lock(mutex_);
          // The newer half of what is not started: the older plans are the
          // ones rank 0's turn reaches first.
          size_t give = queue_.size() / 2;
          for (size_t k = 0; k < give; ++k) {
            back.add_numbers(queue_.back().first);
            queue_.pop_back();
          }
          yielded_ += give;
          outgoing_.emplace_back(RankMessage::Returned, back.SerializeAsString());
        }
      }
      std::deque<std::pair<RankMessage, std::string>> out;
      bool want = false;
      {
        std::lock_guard lock(mutex_);
        out.swap(outgoing_);
        size_t usable = jobs_ - failed_;
        if (usable == 0 && !said_failed) {
          said_failed = true;
          proto::Returned back;
          back.set_failed(failure_);
          for (const auto& [n, p] : queue_) back.add_numbers(n);
          queue_.clear();
          out.emplace_back(RankMessage::Returned, back.SerializeAsString());
        }
        want = usable > 0 && ready_ > 0 && queue_.size() < usable && !wanted;
      }
      for (auto& [kind, body] : out) channel_.send(0, kind, body);
      if (want) {
        proto::Want w;
        w.set_plans(2 * jobs_);
        channel_.send(0, RankMessage::Want, w.SerializeAsString());
        wanted = true;
      }
      if (!busy && out.empty()) std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  }

 private:
  void finish() {
    {
      std::lock_guard lock(mutex_);
      ended_ = true;
      changed_.notify_all();
    }
    for (auto& t : threads_) pthread_kill(t.native_handle(), Tracer::kStopSignal);
    for (auto& t : threads_) t.join();
    proto::RankStats s;
    s.set_sessions(jobs_ - failed_);
    s.set_executions(executions_);
    double idle = 0, life = 0;
    for (size_t k = 0; k < jobs_; ++k) {
      idle += idle_[k];
      life += life_[k];
    }
    s.set_idle_seconds(idle);
    s.set_life_seconds(life);
    s.set_yielded(yielded_);
    channel_.send(0, RankMessage::Ended, s.SerializeAsString());
  }

  void session(size_t k) {
    Tracer::set_helper_thread();
    // The plan being run: given back to the queue should the session fail,
    // so that rank 0 never waits for it (a DPOR work item would stall).
    std::optional<std::pair<uint64_t, ExecutionPlan>> running;
    try {
      HelperStart start = start_helper_session(config_, k, clock::time_point::max(), expected_, first_, first_result_);
      if (!start.session) {
        std::lock_guard lock(mutex_);
        ++failed_;
        if (failure_.empty()) failure_ = start.interrupted ? "stopped" : start.failed;
        return;
      }
      Session& session = *start.session;
      auto began = clock::now();
      {
        std::lock_guard lock(mutex_);
        ++ready_;
      }
      for (;;) {
        std::pair<uint64_t, ExecutionPlan> work;
        {
          std::unique_lock lock(mutex_);
          auto t0 = clock::now();
          changed_.wait(lock, [&] { return ended_ || !queue_.empty(); });
          idle_[k] += std::chrono::duration<double>(clock::now() - t0).count();
          if (ended_) break;
          work = std::move(queue_.front());
          queue_.pop_front();
        }
        running = work;
        ExecutionResult r = session.run(work.second, work.first, expected_);
        running.reset();
        if (r.end == ExecutionResult::End::Interrupted) break;
        proto::SeedResult s;
        s.set_number(work.first);
        s.set_outside(touches_outside(r, session.region().header().files_changed.load() != 0));
        encode_result(r, *s.mutable_result());
        std::lock_guard lock(mutex_);
        ++executions_;
        outgoing_.emplace_back(RankMessage::Result, s.SerializeAsString());
      }
      std::lock_guard lock(mutex_);
      life_[k] = std::chrono::duration<double>(clock::now() - began).count();
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      ++failed_;
      if (failure_.empty()) failure_ = e.what();
      if (running) queue_.push_front(std::move(*running));
      changed_.notify_all();
    }
  }

  RankChannel& channel_;
  unsigned jobs_;
  proto::Exploration x_;
  SessionConfig config_;
  std::unique_ptr<Instrumentation> instrumentation_;
  std::vector<shm::Signature> expected_;
  ExecutionPlan first_;
  ExecutionResult first_result_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<uint64_t, ExecutionPlan>> queue_;  // held, not started, oldest first
  std::deque<std::pair<RankMessage, std::string>> outgoing_;
  bool ended_ = false;
  size_t failed_ = 0, ready_ = 0;
  std::string failure_;
  uint64_t executions_ = 0, yielded_ = 0;
  std::vector<double> idle_, life_;
  std::vector<std::thread> threads_;
};

}  // namespace

int run_rank_worker(RankChannel& channel, unsigned jobs, const std::string& agent) {
  for (;;) {
    RankChannel::Message m = channel.wait();
    if (m.kind == RankMessage::Finish) return kExitNoBug;
    if (m.kind != RankMessage::Begin) continue;  // left over from an exploration that ended
    proto::Exploration x;
    if (!x.ParseFromString(m.body)) throw InternalError("--mpi: rank 0 sent an unreadable exploration");
    std::unique_ptr<Exploration> e;
    try {
      e = std::make_unique<Exploration>(channel, jobs, agent, x);
    } catch (const std::exception& error) {
      // This rank cannot make the sessions: it says so and waits for the end.
      proto::Returned back;
      back.set_failed(error.what());
      channel.send(0, RankMessage::Returned, back.SerializeAsString());
      while (channel.wait().kind != RankMessage::End) {
      }
      channel.send(0, RankMessage::Ended, proto::RankStats().SerializeAsString());
      continue;
    }
    e->run();
  }
}

}  // namespace ctrl
