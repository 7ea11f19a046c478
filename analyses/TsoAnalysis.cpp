// x86-TSO: chronological traces over one store buffer per thread
// (StoreBufferAnalysis.h).
#include "StoreBufferAnalysis.h"

namespace ctrl {

namespace {
class TsoAnalysis final : public StoreBufferAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::TSO; }
};
constinit const TsoAnalysis the_model{};
}  // namespace

const ModelAnalysis& tso_analysis() { return the_model; }

}  // namespace ctrl
