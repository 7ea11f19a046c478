// The name of the function a program called for a visible operation, as
// its source spells it (`pthread_mutex_lock`, `pthread_cond_wait`), for
// reports: the operation table's names (OpKinds.def: `mutex_lock`,
// `cond_wake`) are the model's, and a thread woken in pthread_cond_wait
// that waits to take its mutex back is still in pthread_cond_wait for the
// person reading the report.
#pragma once

#include "Operation.h"

namespace ctrl {

// The called function's name; the operation's own name for what is no
// call (loads, stores, flushes, thread starts).
const char* called_name(OpKind kind);

}  // namespace ctrl
