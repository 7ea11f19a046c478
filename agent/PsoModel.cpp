// PSO (--model pso): one store buffer per thread and 8-byte location, each
// a flush actor numbered in order of first use in the execution; an sfence
// orders the thread's stores before it ahead of those after it
// (StoreBufferModel.h, StoreBuffers.h).
#include "StoreBufferModel.h"

namespace ctrl::agent {

namespace {
class PsoModel final : public StoreBufferModel {
 public:
  constexpr PsoModel() : StoreBufferModel(shm::MemoryModel::PSO, StoreBuffers::Mode::PSO) {}
};
constinit PsoModel pso;
}  // namespace

MemoryModel& pso_model() { return pso; }

}  // namespace ctrl::agent
