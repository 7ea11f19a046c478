#include "parallel/WorkCodec.h"

#include <cstring>

#include "cli/ExitStatus.h"

namespace ctrl {

template <typename T>
std::vector<T> pod_vector(const std::string& bytes) {
  if (bytes.size() % sizeof(T) != 0) throw InternalError("--mpi: a message's array has a partial element");
  std::vector<T> v(bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

template std::vector<shm::Event> pod_vector<shm::Event>(const std::string&);
template std::vector<shm::Signature> pod_vector<shm::Signature>(const std::string&);
template std::vector<shm::Header::Range> pod_vector<shm::Header::Range>(const std::string&);

namespace {
using Sleeper = std::pair<uint32_t, shm::SleeperAccess>;
struct SleeperBytes {
  uint32_t thread;
  shm::SleeperAccess access;
};
}  // namespace

void encode_plan(const ExecutionPlan& p, proto::Plan& out) {
  out.Clear();
  for (uint32_t t : p.prefix) out.add_prefix(t);
  out.set_choices(pod_bytes(p.choices));
  out.set_policy(uint32_t(p.policy));
  out.set_seed(p.seed);
  out.set_pct_depth(p.pct_depth);
  for (uint64_t c : p.pct_change) out.add_pct_change(c);
  out.set_pause_at(p.pause_at);
  out.set_checkpoint_at(p.checkpoint_at);
  out.set_sleep_mask(p.sleep_mask);
  out.set_has_sleep_from(p.sleep_from.has_value());
  out.set_sleep_from(p.sleep_from.value_or(0));
  std::vector<SleeperBytes> sleepers;
  for (const auto& [t, a] : p.sleepers) sleepers.push_back({t, a});
  out.set_sleepers(pod_bytes(sleepers));
  out.set_probe(p.probe);
}

ExecutionPlan decode_plan(const proto::Plan& in) {
  ExecutionPlan p;
  p.prefix.assign(in.prefix().begin(), in.prefix().end());
  p.choices = pod_vector<shm::Choice>(in.choices());
  p.policy = shm::TailPolicy(in.policy());
  p.seed = in.seed();
  p.pct_depth = in.pct_depth();
  p.pct_change.assign(in.pct_change().begin(), in.pct_change().end());
  p.pause_at = in.pause_at();
  p.checkpoint_at = in.checkpoint_at();
  p.sleep_mask = in.sleep_mask();
  if (in.has_sleep_from()) p.sleep_from = in.sleep_from();
  for (const auto& s : pod_vector<SleeperBytes>(in.sleepers())) p.sleepers.emplace_back(s.thread, s.access);
  p.probe = in.probe();
  return p;
}

void encode_result(const ExecutionResult& r, proto::Result& out) {
  out.Clear();
  out.set_end(uint32_t(r.end));
  out.set_message(r.message);
  out.set_exit_status(r.exit_status);
  out.set_events(pod_bytes(r.events));
  out.set_pending(pod_bytes(r.pending));
  out.set_discovered(pod_bytes(r.discovered));
  out.set_discovered_more(r.discovered_more);
  out.set_thread(r.thread);
  out.set_site(r.site);
  out.set_steps(r.steps);
}

ExecutionResult decode_result(const proto::Result& in) {
  ExecutionResult r;
  r.end = ExecutionResult::End(in.end());
  r.message = in.message();
  r.exit_status = in.exit_status();
  r.events = pod_vector<shm::Event>(in.events());
  r.pending = pod_vector<shm::Event>(in.pending());
  r.discovered = pod_vector<shm::Header::Range>(in.discovered());
  r.discovered_more = in.discovered_more();
  r.thread = in.thread();
  r.site = in.site();
  r.steps = in.steps();
  return r;
}

}  // namespace ctrl
