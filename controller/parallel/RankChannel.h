// The messages between the ranks of `ctrl attach --mpi` (Open MPI): one MPI
// message each, its tag the kind, its body bytes (a protocol/work.proto
// message). Built only when CMake found MPI (CTRL_HAVE_MPI); the MPI calls
// themselves are in libctrl-mpi.so (MpiTransport.h), loaded by the
// constructor.
//
// Invariants: MPI is initialised by the constructor and finalised by the
// destructor, both on the main thread; between them one thread at a time
// calls send/poll (MPI_THREAD_SERIALIZED: rank 0's RemoteRanks thread while
// an exploration runs, the main thread otherwise). The threads MPI starts
// have SIGCHLD, SIGINT, SIGTERM and Tracer::kStopSignal blocked, so that
// those signals reach the Tracers' signalfds and never a thread of MPI's.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace ctrl {

class MpiTransport;

enum class RankMessage : int {
  Begin = 1,  // rank 0: an exploration begins (proto::Exploration)
  Work,       // rank 0: a work item (proto::WorkItem)
  Result,     // a rank: a plan's result (proto::SeedResult)
  Want,       // a rank: it wants work (proto::Want)
  Yield,      // rank 0: give back half of the plans you hold, not started
  Returned,   // a rank: plans given back (proto::Returned)
  End,        // rank 0: the exploration is over, stop your sessions
  Ended,      // a rank: its account of the exploration (proto::RankStats)
  Finish,     // rank 0: ctrl ends
};

class RankChannel {
 public:
  // Loads libctrl-mpi.so (beside the agent) and starts MPI; throws
  // UsageError when either cannot.
  RankChannel();
  ~RankChannel();
  RankChannel(const RankChannel&) = delete;
  RankChannel& operator=(const RankChannel&) = delete;

  int rank() const;
  int size() const;

  struct Message {
    int from = 0;
    RankMessage kind = RankMessage::Finish;
    std::string body;
  };
  void send(int to, RankMessage kind, const std::string& body = {});
  // The next message from any rank, or nullopt when none has arrived.
  std::optional<Message> poll();
  // The next message, waiting for it (polling, with short sleeps: a rank's
  // main thread has nothing else to do meanwhile).
  Message wait();

 private:
  void* module_ = nullptr;  // dlopen's handle of libctrl-mpi.so, never closed
  std::unique_ptr<MpiTransport> mpi_;
};

}  // namespace ctrl
