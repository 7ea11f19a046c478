#include "parallel/RankChannel.h"

#include <fmt/format.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "cli/ExitStatus.h"
#include "session/Tracer.h"

namespace ctrl {

RankChannel::RankChannel() {
  // Threads MPI starts inherit this thread's mask: the signals ctrl's
  // Tracers read from signalfds must never be taken by one of them.
  sigset_t block, old;
  sigemptyset(&block);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, Tracer::kStopSignal}) sigaddset(&block, s);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int provided = 0;
  int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != MPI_SUCCESS) throw UsageError("--mpi: MPI did not start (run ctrl under mpirun)");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw UsageError("--mpi: this MPI library cannot be called from more than one thread (MPI_THREAD_SERIALIZED)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

RankChannel::~RankChannel() { MPI_Finalize(); }

void RankChannel::send(int to, RankMessage kind, const std::string& body) {
  if (MPI_Send(body.data(), int(body.size()), MPI_BYTE, to, int(kind), MPI_COMM_WORLD) != MPI_SUCCESS)
    throw InternalError(fmt::format("--mpi: sending to rank {} failed", to));
}

std::optional<RankChannel::Message> RankChannel::poll() {
  int flag = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  Message m;
  m.from = status.MPI_SOURCE;
  m.kind = RankMessage(status.MPI_TAG);
  m.body.resize(size_t(count));
  MPI_Recv(m.body.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return m;
}

RankChannel::Message RankChannel::wait() {
  for (;;) {
    if (auto m = poll()) return std::move(*m);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

}  // namespace ctrl
