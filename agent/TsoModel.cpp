// x86-TSO (--model tso): one store buffer per thread, flushed in order
// (StoreBufferModel.h); flush actor shm::kFlushActorBase + t is thread t's.
#include "StoreBufferModel.h"

namespace ctrl::agent {

namespace {
class TsoModel final : public StoreBufferModel {
 public:
  TsoModel() : StoreBufferModel(shm::MemoryModel::TSO, StoreBuffers::Mode::TSO) {}
};
TsoModel tso __attribute__((init_priority(101)));
}  // namespace

MemoryModel& tso_model() { return tso; }

}  // namespace ctrl::agent
