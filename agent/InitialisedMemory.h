// Memory the program initialised before the checkpoint that no event shows
// (read under --model c11/rc11; recorded under every model, since the model
// comes with the first plan, after the checkpoint): the bytes of atomic operations made before its
// first thread, and calloc'd blocks. Recorded in the region's `initialised`
// table, which the controller reads when it decides whether a load of a
// location's value at the checkpoint is an uninitialised load.
#pragma once

#include <cstdint>

namespace ctrl::agent {

// Appends [addr, addr + size) to the table (or marks it overflowed). Only
// before the checkpoint, when one thread runs.
void note_initialised(uint64_t addr, uint64_t size);

}  // namespace ctrl::agent
