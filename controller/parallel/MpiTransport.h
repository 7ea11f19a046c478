// The MPI calls of `ctrl attach --mpi`, in a module of their own
// (libctrl-mpi.so beside the agent) that ctrl loads only when --mpi is given:
// linking Open MPI into ctrl made every run of ctrl load seven more
// libraries (about 4 ms of start-up, docs/PERFORMANCE.md "Start-up of
// ctrl"). RankChannel (RankChannel.h) is the only user.
//
// Invariants: the module's one entry point is the C symbol kMpiOpenSymbol
// (MpiOpen); it initialises MPI, or returns nullptr with *error set. Then
// one thread at a time calls the object (MPI_THREAD_SERIALIZED), and
// deleting it finalises MPI. Both sides are built from this header by the
// same build, so the virtual calls across the module agree.
#pragma once

#include <string>

namespace ctrl {

class MpiTransport {
 public:
  virtual ~MpiTransport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // One message of `tag` with `body`'s bytes; false when MPI failed.
  virtual bool send(int to, int tag, const std::string& body) = 0;
  // The next message from any rank, if one has arrived.
  virtual bool poll(int& from, int& tag, std::string& body) = 0;
};

using MpiOpen = MpiTransport* (*)(const char** error);
inline constexpr const char* kMpiOpenSymbol = "ctrl_mpi_open";
inline constexpr const char* kMpiModuleName = "libctrl-mpi.so";

}  // namespace ctrl
