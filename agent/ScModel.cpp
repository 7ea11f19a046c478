// Sequential consistency (--model sc, the default): every load reads memory
// as it is, every store is written at once, nothing drains and no actor
// exists besides the program's threads. Every decision is MemoryModel's
// default, so the hot path calls nothing.
#include "MemoryModel.h"

namespace ctrl::agent {

namespace {
class ScModel final : public MemoryModel {
 public:
  constexpr ScModel() : MemoryModel(shm::MemoryModel::SC, 0) {}
};
constinit ScModel sc;
}  // namespace

MemoryModel& sc_model() { return sc; }

}  // namespace ctrl::agent
