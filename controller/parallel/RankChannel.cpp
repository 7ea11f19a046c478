#include "parallel/RankChannel.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "cli/ExitStatus.h"
#include "cli/InstallLayout.h"
#include "parallel/MpiTransport.h"
#include "session/Tracer.h"

namespace ctrl {

RankChannel::RankChannel() {
  std::string path = (ctrl_library_dir() / kMpiModuleName).string();
  module_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!module_) throw UsageError(fmt::format("--mpi: cannot load the MPI module: {}", dlerror()));
  auto open = reinterpret_cast<MpiOpen>(dlsym(module_, kMpiOpenSymbol));
  if (!open) throw InternalError(fmt::format("--mpi: {} has no {}", path, kMpiOpenSymbol));
  // Threads MPI starts inherit this thread's mask: the signals ctrl's
  // Tracers read from signalfds must never be taken by one of them.
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, Tracer::kStopSignal}) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  const char* error = nullptr;
  mpi_.reset(open(&error));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (!mpi_) throw UsageError(error ? error : "--mpi: MPI did not start");
}

// Finalises MPI; the module stays loaded (MPI's threads may outlive it).
RankChannel::~RankChannel() = default;

int RankChannel::rank() const { return mpi_->rank(); }
int RankChannel::size() const { return mpi_->size(); }

void RankChannel::send(int to, RankMessage kind, const std::string& body) {
  if (!mpi_->send(to, int(kind), body)) throw InternalError(fmt::format("--mpi: sending to rank {} failed", to));
}

std::optional<RankChannel::Message> RankChannel::poll() {
  Message m;
  int tag = 0;
  if (!mpi_->poll(m.from, tag, m.body)) return std::nullopt;
  m.kind = RankMessage(tag);
  return m;
}

RankChannel::Message RankChannel::wait() {
  for (;;) {
    if (auto m = poll()) return std::move(*m);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

}  // namespace ctrl
