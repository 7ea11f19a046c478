// MpiTransport on Open MPI's C API: built into libctrl-mpi.so only.
#include "parallel/MpiTransport.h"

#include <mpi.h>

namespace ctrl {
namespace {

class OpenMpiTransport final : public MpiTransport {
 public:
  OpenMpiTransport() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~OpenMpiTransport() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool send(int to, int tag, const std::string& body) override {
    return MPI_Send(body.data(), int(body.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD) == MPI_SUCCESS;
  }
  bool poll(int& from, int& tag, std::string& body) override {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return false;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    from = status.MPI_SOURCE;
    tag = status.MPI_TAG;
    body.resize(size_t(count));
    MPI_Recv(body.data(), count, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return true;
  }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace
}  // namespace ctrl

extern "C" __attribute__((visibility("default"))) ctrl::MpiTransport* ctrl_mpi_open(const char** error) {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    *error = "--mpi: MPI did not start (run ctrl under mpirun)";
    return nullptr;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    *error = "--mpi: this MPI library cannot be called from more than one thread (MPI_THREAD_SERIALIZED)";
    return nullptr;
  }
  return new ctrl::OpenMpiTransport();
}
