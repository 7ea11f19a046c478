// Warnings for the user from inside the target (whose own stderr is
// usually /dev/null): sent to ctrl as a Notice, which prints it.
#pragma once

namespace ctrl::agent {

// Async-signal-safe and allocation-free: builds the frame on the stack (the
// program's heap must not depend on whether a warning was sent).
void send_notice(const char* text);

}  // namespace ctrl::agent
