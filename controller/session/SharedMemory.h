// The controller's side of the shared region (see SharedRegion.h): a memfd
// sized for `capacity` steps, mapped here and handed to the agent by
// descriptor. Lives as long as the session.
#pragma once

#include <cstdint>
#include <vector>

#include "SharedRegion.h"

namespace ctrl {

struct ExecutionPlan;

class SharedMemory {
 public:
  explicit SharedMemory(uint64_t capacity);
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  int fd() const { return fd_; }
  const shm::View& view() const { return view_; }
  shm::Header& header() const { return *view_.header; }
  uint64_t capacity() const { return view_.header->capacity; }

  // Writes the plan of the next execution and clears the live fields. Only
  // while no execution runs. `expected` may be empty (no replay check).
  void prepare(const ExecutionPlan& plan, uint64_t execution, uint64_t max_steps,
               const std::vector<shm::Signature>& expected, bool show_output, shm::MemoryModel model);

 private:
  int fd_ = -1;
  void* base_ = nullptr;
  size_t size_ = 0;
  shm::View view_;
};

}  // namespace ctrl
