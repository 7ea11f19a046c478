#include "parallel/RemoteRanks.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "cli/ExitStatus.h"
#include "parallel/WorkCodec.h"
#include "work.pb.h"

namespace ctrl {

RemoteRanks::RemoteRanks(RankChannel& channel, unsigned jobs) : channel_(channel), jobs_(jobs) {}

RemoteRanks::~RemoteRanks() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  for (int r = 1; r < channel_.size(); ++r) channel_.send(r, RankMessage::Finish);
}

void RemoteRanks::begin(PartitionedSampling& partition, const SessionConfig& config,
                        const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                        const ExecutionResult& first_result) {
  send_begin(config, expected, first, first_result);
  partition_ = &partition;
  ranks_.assign(size_t(channel_.size()), Rank{});
  stop_ = false;
  begun_ = true;
  thread_ = std::thread([this] { serve(); });
}

void RemoteRanks::begin_dpor(PartitionedDpor& dpor, const SessionConfig& config,
                             const std::vector<shm::Signature>& expected, const ExecutionPlan& first,
                             const ExecutionResult& first_result) {
  send_begin(config, expected, first, first_result);
  dpor_ = &dpor;
  ranks_.assign(size_t(channel_.size()), Rank{});
  for (auto& k : ranks_) k.busy.assign(jobs_, false);
  stop_ = false;
  begun_ = true;
  thread_ = std::thread([this] { serve(); });
}

void RemoteRanks::send_begin(const SessionConfig& config, const std::vector<shm::Signature>& expected,
                             const ExecutionPlan& first, const ExecutionResult& first_result) {
  proto::Exploration x;
  x.set_program(config.program);
  for (const auto& a : config.args) x.add_args(a);
  for (const auto& e : config.env) x.add_env(e);
  x.set_cwd(config.cwd);
  x.set_max_steps(config.max_steps);
  x.set_hang_timeout(config.hang_timeout);
  x.set_model(uint32_t(config.model));
  x.set_fail_on_exit(sites_.fail_on_exit);
  x.set_in_place(config.in_place);
  x.set_clock_realtime_ns(config.clock_realtime_ns);
  x.set_clock_monotonic_ns(config.clock_monotonic_ns);
  x.set_own_memory(config.own_memory);
  x.set_shared(pod_bytes(config.shared));
  x.set_sites(sites_.sites);
  for (const auto& lib : sites_.instrument) x.add_instrument(lib);
  x.set_expected(pod_bytes(expected));
  encode_plan(first, *x.mutable_first_plan());
  encode_result(first_result, *x.mutable_first_result());
  std::string body = x.SerializeAsString();
  for (int r = 1; r < channel_.size(); ++r) channel_.send(r, RankMessage::Begin, body);
}

void RemoteRanks::end(SpeculationStats& stats) {
  if (!begun_) return;
  stop_ = true;
  thread_.join();
  begun_ = false;
  // Rank 0's own sessions first, as one rank.
  SpeculationStats::Rank own;
  own.sessions = unsigned(stats.workers.size());
  double idle = 0;
  for (const auto& w : stats.workers) {
    own.executions += w.executions;
    idle += w.idle_fraction;
  }
  own.idle_fraction = stats.workers.empty() ? 0 : idle / double(stats.workers.size());
  own.steals = 0;
  stats.ranks.push_back(own);
  for (int r = 1; r < channel_.size(); ++r) channel_.send(r, RankMessage::End);
  std::vector<std::optional<proto::RankStats>> ended(size_t(channel_.size()));
  int waiting = channel_.size() - 1;
  while (waiting > 0) {
    RankChannel::Message m = channel_.wait();
    if (m.kind != RankMessage::Ended) continue;  // results and requests that crossed the End
    proto::RankStats s;
    if (!s.ParseFromString(m.body))
      throw InternalError(fmt::format("--mpi: rank {} sent an unreadable account", m.from));
    ended[size_t(m.from)] = s;
    --waiting;
  }
  for (int r = 1; r < channel_.size(); ++r) {
    const proto::RankStats& s = *ended[size_t(r)];
    SpeculationStats::Rank k;
    k.sessions = s.sessions();
    k.executions = s.executions();
    k.idle_fraction = s.life_seconds() > 0 ? std::min(1.0, s.idle_seconds() / s.life_seconds()) : 1.0;
    k.steals = ranks_[size_t(r)].steals;
    k.yielded = s.yielded();
    stats.ranks.push_back(k);
  }
  stats.jobs = unsigned(stats.workers.size()) + sessions();
  partition_ = nullptr;
  dpor_ = nullptr;
}

void RemoteRanks::serve() {
  // DPOR: free slots ask the partition again when a result came or every
  // few milliseconds (an item another worker left may have work).
  auto fed = std::chrono::steady_clock::now();
  try {
    while (!stop_) {
      bool busy = false;
      while (auto m = channel_.poll()) {
        busy = true;
        handle(*m);
      }
      if (dpor_) {
        auto now = std::chrono::steady_clock::now();
        if (busy || now - fed >= std::chrono::milliseconds(2)) {
          feed_dpor();
          fed = now;
        }
      } else if (partition_->active()) {
        for (int r = 1; r < channel_.size(); ++r) {
          Rank& k = ranks_[size_t(r)];
          if (!k.hungry || !k.usable) continue;
          if (feed(r))
            k.hungry = false;
          else
            steal_for(r);
        }
      }
      if (!busy) std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  } catch (const std::exception& e) {
    // The explorer's session goes on alone: the ranks' plans are claimed
    // again as the partition's turn reaches them.
    fmt::print(stderr, "ctrl: --mpi: rank 0 stops handing out work: {}\n", e.what());
    if (dpor_) return dpor_drop_all();
    for (auto& k : ranks_) {
      std::vector<uint64_t> numbers;
      for (const auto& [n, p] : k.held) numbers.push_back(n);
      k.held.clear();
      give_back(numbers);
    }
  }
}

void RemoteRanks::handle(const RankChannel::Message& m) {
  Rank& k = ranks_.at(size_t(m.from));
  if (dpor_) {
    if (m.kind == RankMessage::Want) k.started = true;
    if (m.kind == RankMessage::Result) dpor_result(m.from, k, m);
    if (m.kind == RankMessage::Returned) dpor_returned(m.from, k, m);
    return;
  }
  switch (m.kind) {
    case RankMessage::Want:
      k.hungry = true;
      break;
    case RankMessage::Result: {
      proto::SeedResult s;
      if (!s.ParseFromString(m.body)) throw InternalError(fmt::format("rank {} sent an unreadable result", m.from));
      auto it = k.held.find(s.number());
      if (it == k.held.end()) break;  // given back meanwhile
      ExecutionPlan plan = std::move(it->second);
      k.held.erase(it);
      ++k.executions;
      partition_->deliver(s.number(), std::move(plan), decode_result(s.result()), s.outside());
      break;
    }
    case RankMessage::Returned: {
      proto::Returned back;
      if (!back.ParseFromString(m.body)) throw InternalError(fmt::format("rank {} sent an unreadable return", m.from));
      k.yielding = false;
      std::vector<uint64_t> numbers;
      for (uint64_t n : back.numbers())
        if (k.held.erase(n)) numbers.push_back(n);
      if (!back.failed().empty()) {
        // Its sessions cannot stand for rank 0's: everything it holds is back.
        k.usable = false;
        for (const auto& [n, p] : k.held) numbers.push_back(n);
        k.held.clear();
        fmt::print(stderr, "ctrl: --mpi: rank {} takes no part: {}\n", m.from, back.failed());
      }
      give_back(numbers);
      break;
    }
    default:
      break;
  }
}

void RemoteRanks::give_back(const std::vector<uint64_t>& numbers) {
  std::vector<uint64_t> sorted = numbers;
  std::sort(sorted.begin(), sorted.end());
  // Runs of consecutive numbers, each one range.
  for (size_t a = 0; a < sorted.size();) {
    size_t b = a + 1;
    while (b < sorted.size() && sorted[b] == sorted[b - 1] + 1) ++b;
    partition_->give_back_remote(sorted[a], sorted[b - 1] + 1);
    a = b;
  }
}

bool RemoteRanks::feed(int r) {
  auto range = partition_->claim_remote();
  if (!range) return false;
  proto::SeedRange seeds;
  seeds.set_first(range->first);
  Rank& k = ranks_[size_t(r)];
  uint64_t m = range->first;
  for (; m < range->second; ++m) {
    std::optional<ExecutionPlan> plan = partition_->plan_for(m);
    if (!plan) break;
    encode_plan(*plan, *seeds.add_plans());
    k.held.emplace(m, std::move(*plan));
  }
  // A plan the strategy does not have is the explorer's to find out.
  if (m < range->second) partition_->give_back_remote(m, range->second);
  if (seeds.plans_size() == 0) return false;
  proto::WorkItem item;
  item.set_kind("seed-range");
  item.set_body(seeds.SerializeAsString());
  channel_.send(r, RankMessage::Work, item.SerializeAsString());
  return true;
}

void RemoteRanks::steal_for(int r) {
  // The busiest rank, if it holds more than it can start at once.
  int victim = 0;
  size_t most = 2 * size_t(jobs_);
  for (int v = 1; v < channel_.size(); ++v) {
    const Rank& k = ranks_[size_t(v)];
    if (v == r || !k.usable || k.yielding) continue;
    if (k.held.size() > most) {
      most = k.held.size();
      victim = v;
    }
  }
  if (!victim) return;
  ranks_[size_t(victim)].yielding = true;
  ++ranks_[size_t(r)].steals;
  channel_.send(victim, RankMessage::Yield);
}

void RemoteRanks::feed_dpor() {
  for (int r = 1; r < channel_.size(); ++r) {
    Rank& k = ranks_[size_t(r)];
    if (!k.started || !k.usable) continue;
    for (size_t slot = 0; slot < jobs_; ++slot) {
      if (k.busy[slot]) continue;
      DporPartition::Task task;
      if (!dpor_->remote_next(size_t(r - 1) * jobs_ + slot, task)) continue;
      uint64_t number = next_number_++;
      proto::SeedRange one;
      one.set_first(number);
      encode_plan(task.plan, *one.add_plans());
      proto::WorkItem item;
      item.set_kind("seed-range");
      item.set_body(one.SerializeAsString());
      channel_.send(r, RankMessage::Work, item.SerializeAsString());
      k.tasks.emplace(number, std::make_pair(slot, std::move(task)));
      k.busy[slot] = true;
    }
  }
}

void RemoteRanks::dpor_result(int r, Rank& k, const RankChannel::Message& m) {
  proto::SeedResult s;
  if (!s.ParseFromString(m.body)) throw InternalError(fmt::format("rank {} sent an unreadable result", m.from));
  auto it = k.tasks.find(s.number());
  if (it == k.tasks.end()) return;  // returned meanwhile
  auto [slot, task] = std::move(it->second);
  k.tasks.erase(it);
  k.busy[slot] = false;
  ++k.executions;
  dpor_->remote_completed(size_t(r - 1) * jobs_ + slot, std::move(task), decode_result(s.result()), s.outside());
}

void RemoteRanks::dpor_returned(int r, Rank& k, const RankChannel::Message& m) {
  proto::Returned back;
  if (!back.ParseFromString(m.body)) throw InternalError(fmt::format("rank {} sent an unreadable return", m.from));
  // Asked for nothing under DPOR: only a rank whose sessions failed gives
  // back, and then everything it holds (its slots' items go free).
  if (back.failed().empty()) return;
  k.usable = false;
  fmt::print(stderr, "ctrl: --mpi: rank {} takes no part: {}\n", m.from, back.failed());
  for (auto& [number, out] : k.tasks) dpor_->remote_lost(size_t(r - 1) * jobs_ + out.first, std::move(out.second));
  k.tasks.clear();
  for (size_t slot = 0; slot < jobs_; ++slot) {
    if (!k.busy[slot]) dpor_->remote_release(size_t(r - 1) * jobs_ + slot);
    k.busy[slot] = true;  // never fed again
  }
}

void RemoteRanks::dpor_drop_all() {
  for (int r = 1; r < int(ranks_.size()); ++r) {
    Rank& k = ranks_[size_t(r)];
    k.usable = false;
    for (auto& [number, out] : k.tasks) dpor_->remote_lost(size_t(r - 1) * jobs_ + out.first, std::move(out.second));
    k.tasks.clear();
    for (size_t slot = 0; slot < jobs_; ++slot)
      if (!k.busy.empty() && !k.busy[slot]) dpor_->remote_release(size_t(r - 1) * jobs_ + slot);
  }
}

}  // namespace ctrl
