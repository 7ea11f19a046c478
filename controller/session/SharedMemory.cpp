#include "session/SharedMemory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include "cli/ExitStatus.h"
#include "Strategy.h"

namespace ctrl {

SharedMemory::SharedMemory(uint64_t capacity) {
  size_ = shm::region_size_for(capacity);
  fd_ = memfd_create("ctrl-region", MFD_CLOEXEC);
  if (fd_ < 0) throw InternalError(std::string("memfd_create: ") + strerror(errno));
  if (ftruncate(fd_, off_t(size_)) != 0) throw InternalError(std::string("ftruncate: ") + strerror(errno));
  base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (base_ == MAP_FAILED) throw InternalError(std::string("mmap: ") + strerror(errno));
  auto* h = new (base_) shm::Header();
  h->magic = shm::kMagic;
  h->version = shm::kVersion;
  h->capacity = capacity;
  h->region_size = size_;
  h->max_steps = capacity;
  h->checkpoint_at = UINT64_MAX;
  view_ = shm::View::of(base_);
}

SharedMemory::~SharedMemory() {
  if (base_ && base_ != MAP_FAILED) munmap(base_, size_);
  if (fd_ >= 0) close(fd_);
}

void SharedMemory::prepare(const ExecutionPlan& plan, uint64_t execution, uint64_t max_steps,
                           const std::vector<shm::Signature>& expected, bool show_output, shm::MemoryModel model) {
  shm::Header& h = header();
  uint64_t prefix = std::min<uint64_t>(plan.prefix.size(), h.capacity);
  std::copy_n(plan.prefix.begin(), prefix, view_.prefix);
  // Every decision of the prefix has its Choice: the plan's, else Default.
  uint64_t chosen = std::min<uint64_t>(plan.choices.size(), prefix);
  std::copy_n(plan.choices.begin(), chosen, view_.choices);
  std::memset(static_cast<void*>(view_.choices + chosen), 0, (prefix - chosen) * sizeof(shm::Choice));
  uint64_t checked = std::min<uint64_t>(expected.size(), prefix);
  std::copy_n(expected.begin(), checked, view_.expected);
  h.execution = execution;
  h.seed = plan.seed;
  h.max_steps = std::min(max_steps, h.capacity);
  h.prefix_len = prefix;
  h.policy = plan.policy;
  h.read_states = plan.read_states ? 1 : 0;
  h.pct_depth = plan.pct_depth;
  for (uint32_t i = 0; i + 1 < shm::kMaxPctDepth; ++i)
    h.pct_change[i] = i < plan.pct_change.size() ? plan.pct_change[i] : UINT64_MAX;
  h.pause_at = plan.pause_at;
  h.checkpoint_at = plan.checkpoint_at;
  h.checkpoint_result = -1;
  h.command = shm::StepCommand::None;
  h.sleep_mask = plan.sleep_mask;
  std::memset(h.sleepers, 0, sizeof h.sleepers);
  for (const auto& [thread, access] : plan.sleepers)
    if (thread < shm::kMaxThreads) h.sleepers[thread] = access;
  h.sleep_from = plan.sleep_from.value_or(prefix > 0 ? prefix - 1 : 0);
  h.checked_steps = checked;
  h.target_output = show_output ? 1 : 0;
  h.model = model;
  h.steps.store(0);
  h.attention.store(0);
  h.started.store(0);
  h.current = 0;
  h.nthreads = 0;
  h.outcome = shm::Outcome::Running;
  h.outcome_thread = 0;
  h.outcome_site = 0;
  h.exit_status = 0;
  h.signal = 0;
  h.fault_addr = 0;
  h.outcome_tid = 0;
  h.message[0] = 0;
  h.panic_tid.store(0);
  h.panic_thread = 0;
  h.panic_len = 0;
  h.panic_done = 0;
  std::memset(h.threads, 0, sizeof h.threads);
  h.ndiscovered = 0;
  h.user_handoffs = 0;
  h.user_thread_starts = 0;
  h.user_thread_ends = 0;
  h.current_tid = 0;
  h.discovered_overflow = 0;
}

}  // namespace ctrl
