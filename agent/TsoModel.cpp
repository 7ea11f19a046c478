// x86-TSO (--model tso): one store buffer per thread, flushed in order
// (StoreBufferModel.h); flush actor shm::kFlushActorBase + t is thread t's.
#include "StoreBufferModel.h"

namespace ctrl::agent {

namespace {
class TsoModel final : public StoreBufferModel {
 public:
  constexpr TsoModel() : StoreBufferModel(shm::MemoryModel::TSO, StoreBuffers::Mode::TSO) {}
};
constinit TsoModel tso;
}  // namespace

MemoryModel& tso_model() { return tso; }

}  // namespace ctrl::agent
